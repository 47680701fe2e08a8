# Every Go command builds with cgo (go-sqlite3) and SQLite's FTS5.
export CGO_ENABLED := 1
TAGS := -tags sqlite_fts5
GO ?= go

.PHONY: build run test bench chaos lint

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

# Kills, pauses and outages against the real binaries on both backends, then the invariant
# checks; CHAOS_FLAGS="-seed N -duration 60s -backend db -v" to vary it.
chaos: build
	$(GO) build $(TAGS) -o bin/chaos ./cmd/chaos
	./bin/chaos $(CHAOS_FLAGS)

lint:
	$(GO) vet $(TAGS) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
