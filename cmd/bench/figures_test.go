package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/sqlite"
)

// TestFiguresHavePostgresRows runs the pg-latency, pg-idle and pg-commit scenarios at toy sizes
// with -figures and checks the file holds their synchronous_commit=on figures under the keys
// bench/peers/river reads (pg-db drains in a child of the bench binary, which a test binary is
// not, so its pg_drain key is checked only against the peers' list).
func TestFiguresHavePostgresRows(t *testing.T) {
	pgtest.Require(t)
	figures := filepath.Join(t.TempDir(), "figures.json")
	o := options{
		events: 10, handlers: 3, payload: 16, steadyRate: 100, loadRate: 200, duration: 200 * time.Millisecond,
		idle: 3, batch: 100, conc: 4, writeD: 100 * time.Millisecond, clients: 2, writeSpread: 1,
		only: "pg-latency,pg-idle,pg-commit", figures: figures,
		syncs: []sqlite.Synchronous{sqlite.SynchronousNormal}, pgCommits: []string{"on"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := run(ctx, o, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(figures)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]float64
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	for _, k := range []string{"pg_latency_p50_ms", "pg_latency_p99_ms", "pg_idle_p50_ms", "pg_idle_p99_ms", "pg_commit"} {
		if v, ok := got[k]; !ok || v <= 0 {
			t.Errorf("figures %s: %s = %v (present %t), want a positive figure", b, k, v, ok)
		}
	}
	for _, k := range []string{"drain", "commit", "latency_p50_ms"} {
		if _, ok := got[k]; ok {
			t.Errorf("figures %s: SQLite's %s written though no SQLite scenario ran", b, k)
		}
	}
}

// TestFiguresKeysMatchPeers checks that every key cmd/bench writes with -figures is one the
// River benchmark (bench/peers/river/ours.go) reads, so neither side renames one alone.
func TestFiguresKeysMatchPeers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(peersDir, "ours.go"))
	if err != nil {
		t.Fatal(err)
	}
	sqliteKeys := []string{"drain", "latency_p50_ms", "latency_p99_ms", "idle_p50_ms", "idle_p99_ms", "commit"}
	for _, k := range sqliteKeys {
		for _, key := range []string{k, pgFigure(k)} {
			if !strings.Contains(string(src), `"`+key+`"`) {
				t.Errorf("bench/peers/river/ours.go does not read the figure %q cmd/bench writes", key)
			}
		}
	}
}
