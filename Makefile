# Every Go command builds with cgo (go-sqlite3) and SQLite's FTS5.
export CGO_ENABLED := 1
TAGS := -tags sqlite_fts5
GO ?= go
DOCKER ?= docker

# The version stamped into both binaries (--version, NodeInfo, the startup log line,
# moviesdiary_build_info): the release tag (vMAJOR.MINOR.PATCH), or the commit past it.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X moviesdiary/internal/buildinfo.version=$(VERSION)

# Static binaries for the container image: cgo SQLite linked statically, the pure-Go resolver
# and user lookup, the time zone database embedded, no dlopen anywhere (SQLite extension
# loading compiled out; WebP through its WebAssembly build only, never a system libwebp).
STATIC_TAG_LIST := sqlite_fts5 sqlite_omit_load_extension netgo osusergo timetzdata nodynamic
STATIC_TAGS := -tags '$(STATIC_TAG_LIST)'
STATIC_LDFLAGS := -s -w -linkmode external -extldflags -static $(LDFLAGS)

.PHONY: build run test fuzz test-fast bench bench-peers chaos lint static release image image-scratch

build:
	$(GO) build $(TAGS) -ldflags "$(LDFLAGS)" -o bin/server ./cmd/server
	$(GO) build $(TAGS) -ldflags "$(LDFLAGS)" -o bin/worker ./cmd/worker

# Starts the server and the worker on the embedded defaults (SQLite under ./data, db backend).
# Ctrl-C stops both gracefully.
run: build
	@trap 'kill -TERM $$s $$w 2>/dev/null; wait' INT TERM; \
	./bin/server & s=$$!; ./bin/worker & w=$$!; \
	wait $$s $$w

# The whole suite, as CI runs it (.ci/run): a test whose external tool is missing fails, never
# skips (the fast switch is cleared even if the shell exported it).
test: lint
	MOVIESDIARY_TEST_FAST= $(GO) test $(TAGS) -race -count=1 -timeout 20m ./...
	$(MAKE) fuzz

# A bounded fuzz run of every parser of untrusted input (issue 33), FUZZ_TIME each: go test
# alone runs only their seeds. -fuzz takes one target per package run, so one line each;
# a failure leaves its input under the package's testdata/fuzz/ for the seeds of the next run.
FUZZ_TIME ?= 5s
fuzz:
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzCSV$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/tabular
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzJSON$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/tabular
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzXLSX$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/tabular
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzJellyfin$$' -fuzztime $(FUZZ_TIME) ./internal/usecase/integration
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzPlex$$' -fuzztime $(FUZZ_TIME) ./internal/usecase/integration
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzEmby$$' -fuzztime $(FUZZ_TIME) ./internal/usecase/integration
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzReviewDecoding$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/httpapi
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzActivity$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/activitypub
	$(GO) test $(TAGS) -run '^$$' -fuzz '^FuzzSignatureHeader$$' -fuzztime $(FUZZ_TIME) ./internal/adapters/activitypub

# The suite for a machine with only Go and a C compiler: the same checks as make test (vet,
# gofmt, -race, since the race detector needs nothing more than cgo does), but a test whose
# external tool is missing (Chromium, promtool, docker-compose, PostgreSQL, git, systemd-analyze, or the S3
# gateway when offline) is skipped instead of failed (internal/testtool), and the run ends with
# one line per missing tool: the tests it did not run, where, and how to get it.
# MOVIESDIARY_TEST_WITHOUT=postgresql,s3-gateway leaves installed tools out too.
test-fast: lint
	@skipped=$$(mktemp); \
	echo "MOVIESDIARY_TEST_FAST=1 $(GO) test $(TAGS) -race -count=1 -timeout 20m ./..."; \
	MOVIESDIARY_TEST_FAST=1 MOVIESDIARY_TEST_SKIPPED=$$skipped \
		$(GO) test $(TAGS) -race -count=1 -timeout 20m ./...; rc=$$?; \
	sort -u $$skipped | awk -F'\t' ' \
		{ n[$$1]++; get[$$1] = $$4; if (!seen[$$1, $$2]++) where[$$1] = where[$$1] (where[$$1] == "" ? "" : " ") $$2 } \
		END { for (t in n) printf "test-fast: without %s, did not run %d test%s in %s; get it: %s\n", \
			t, n[t], (n[t] == 1 ? "" : "s"), where[t], get[t] }' | sort; \
	[ -s $$skipped ] || echo "test-fast: every tool was there; nothing skipped"; \
	rm -f $$skipped; exit $$rc

# Every scenario of cmd/bench; the pg-* rows run on a throwaway PostgreSQL cluster (Debian's
# postgresql binaries) beside SQLite's. BENCH_FLAGS="-only db,pg-db" to pick.
bench: build
	$(GO) run $(TAGS) ./cmd/bench $(BENCH_FLAGS)

# moviesdiary and River v0.51.2 (its own module under bench/peers/river) in the same run: on
# SQLite (riversqlite, same SQLite settings) and on PostgreSQL (riverpgxv5; moviesdiary's pg-*
# rows and River each on a throwaway cluster started the same way, PostgreSQL's durable defaults,
# synchronous_commit=on): backlog drain, commit→work at 1,000/s and idle, and the write path;
# prints both figures and their ratio. BENCH_PEERS_EVENTS sizes the backlogs;
# BENCH_PEERS_STORES=sqlite or =postgres runs one of the two comparisons.
BENCH_PEERS_EVENTS ?= 20000
BENCH_PEERS_STORES ?= sqlite,postgres
bench_peers_only_sqlite = db,latency,idle,commit
bench_peers_only_postgres = pg-db,pg-latency,pg-idle,pg-commit
bench_peers_comma := ,
bench_peers_empty :=
bench_peers_space := $(bench_peers_empty) $(bench_peers_empty)
bench_peers_only = $(subst $(bench_peers_space),$(bench_peers_comma),$(strip $(foreach s,$(subst $(bench_peers_comma), ,$(BENCH_PEERS_STORES)),$(bench_peers_only_$(s)))))
bench-peers:
	$(GO) build $(TAGS) -o bin/bench ./cmd/bench
	./bin/bench -only $(bench_peers_only) -synchronous normal -pg-synchronous-commit on \
		-events $(BENCH_PEERS_EVENTS) -figures bin/bench-ours.json
	cd bench/peers/river && $(GO) build -o ../../../bin/river-bench .
	./bin/river-bench -stores $(BENCH_PEERS_STORES) -jobs $(BENCH_PEERS_EVENTS) -ours bin/bench-ours.json

# Kills, pauses and outages against the real binaries on both backends, then the invariant
# checks; CHAOS_FLAGS="-seed N -duration 60s -backend db -v" to vary it. CHAOS_FLAGS="-store
# postgres -backend db" runs two servers and three workers on a throwaway PostgreSQL cluster
# (fsync on) that it also restarts during the load.
chaos: build
	$(GO) build $(TAGS) -o bin/chaos ./cmd/chaos
	./bin/chaos $(CHAOS_FLAGS)

lint:
	$(GO) vet $(TAGS) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

static:
	$(GO) build $(STATIC_TAGS) -trimpath -ldflags "$(STATIC_LDFLAGS)" -o bin/static/ ./cmd/server ./cmd/worker

# A release (tag vX.Y.Z first; anything else builds a snapshot with the [Unreleased] notes):
# static binaries for each of RELEASE_PLATFORMS packed with the systemd units, SHA256SUMS and
# the version's CHANGELOG section, in $(DIST)/$(VERSION)/ (scripts/release.sh). cgo needs a C
# compiler per target: arm64 on an amd64 host needs aarch64-linux-gnu-gcc (Debian's
# gcc-aarch64-linux-gnu, or CC_linux_arm64=…); without it that platform is reported NOT built
# and the target fails after building the others.
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64
DIST ?= dist
release:
	GO="$(GO)" VERSION="$(VERSION)" DIST="$(DIST)" RELEASE_PLATFORMS="$(RELEASE_PLATFORMS)" \
		STATIC_TAG_LIST="$(STATIC_TAG_LIST)" STATIC_LDFLAGS="$(STATIC_LDFLAGS)" ./scripts/release.sh

# The production image (distroless/static base, built inside Docker).
image:
	$(DOCKER) build -f deploy/Dockerfile --build-arg VERSION=$(VERSION) -t moviesdiary:$(VERSION) .

# The same runtime FROM scratch over `make static`'s binaries, needing no base image: checks the
# static binaries run in an empty file system.
image-scratch: static
	rm -rf bin/image && mkdir -p bin/image/data
	cp bin/static/server bin/static/worker deploy/Dockerfile.scratch bin/image/
	cp /etc/ssl/certs/ca-certificates.crt bin/image/
	$(DOCKER) build -f bin/image/Dockerfile.scratch -t moviesdiary:$(VERSION)-scratch bin/image
