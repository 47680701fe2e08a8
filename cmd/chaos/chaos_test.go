package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres/pgtest"
)

// TestMain lets the test binary serve as the NATS host the harness restarts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "nats-host" {
		os.Exit(natsHost(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// buildBinaries builds the real server and worker once for the tests.
func buildBinaries(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"server", "worker"} {
		cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", filepath.Join(dir, name), "moviesdiary/cmd/"+name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	return dir
}

// TestChaos is the short run of `make chaos` that `make test` includes: the three backends under
// kills, pauses and (nats) outages, and the db backend on PostgreSQL under a restart of it too,
// must show no violation, and the same harness against a build
// without the ledger must show violations, so the checker itself is known to work.
func TestChaos(t *testing.T) {
	bin := buildBinaries(t)
	seed := uint64(time.Now().UnixNano() % 1_000_000)
	t.Logf("seed %d", seed)
	t.Run("healthy", func(t *testing.T) {
		n, err := run(context.Background(), options{backends: []string{"db", "nats", "core"}, duration: 12 * time.Second, seed: seed, bin: bin, workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d violations (seed %d)", n, seed)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		// Two servers and three workers on a throwaway PostgreSQL cluster, restarted once.
		pgtest.Require(t)
		n, err := run(context.Background(), options{backends: []string{"db"}, store: "postgres", duration: 12 * time.Second, seed: seed, bin: bin})
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d violations on PostgreSQL (seed %d)", n, seed)
		}
	})
	t.Run("broken ledger is caught", func(t *testing.T) {
		n, err := run(context.Background(), options{backends: []string{"db"}, duration: 12 * time.Second, seed: seed, bin: bin, workers: 2, breakLedger: true})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("the harness found no violation in a build without the ledger")
		}
	})
}
