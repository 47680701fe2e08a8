# Every Go command builds with cgo (go-sqlite3) and SQLite's FTS5.
export CGO_ENABLED := 1
TAGS := -tags sqlite_fts5
GO ?= go

.PHONY: build run test bench bench-peers chaos lint

build:
	$(GO) build $(TAGS) -o bin/server ./cmd/server
	$(GO) build $(TAGS) -o bin/worker ./cmd/worker

# Starts the server and the worker on the embedded defaults (SQLite under ./data, db backend).
# Ctrl-C stops both gracefully.
run: build
	@trap 'kill -TERM $$s $$w 2>/dev/null; wait' INT TERM; \
	./bin/server & s=$$!; ./bin/worker & w=$$!; \
	wait $$s $$w

test: lint
	$(GO) test $(TAGS) -race -count=1 -timeout 20m ./...

bench: build
	$(GO) run $(TAGS) ./cmd/bench $(BENCH_FLAGS)

# moviesdiary and River (v0.51.2 on riversqlite, its own module under bench/peers/river) in the
# same run, same SQLite settings: backlog drain, commit→work at 1,000/s and idle, and the write
# path; prints both figures and their ratio. BENCH_PEERS_EVENTS sizes both backlogs.
BENCH_PEERS_EVENTS ?= 20000
bench-peers:
	$(GO) build $(TAGS) -o bin/bench ./cmd/bench
	./bin/bench -only db,latency,idle,write -synchronous normal -events $(BENCH_PEERS_EVENTS) \
		-figures bin/bench-ours.json
	cd bench/peers/river && $(GO) build -o ../../../bin/river-bench .
	./bin/river-bench -jobs $(BENCH_PEERS_EVENTS) -ours bin/bench-ours.json

# Kills, pauses and outages against the real binaries on both backends, then the invariant
# checks; CHAOS_FLAGS="-seed N -duration 60s -backend db -v" to vary it.
chaos: build
	$(GO) build $(TAGS) -o bin/chaos ./cmd/chaos
	./bin/chaos $(CHAOS_FLAGS)

lint:
	$(GO) vet $(TAGS) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
