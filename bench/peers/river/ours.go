package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// oursKeys are the figures cmd/bench -figures writes that this benchmark compares with, by
// store: SQLite's from its db, latency, idle and commit scenarios, PostgreSQL's (synchronous_commit
// on) from pg-db, pg-latency, pg-idle and pg-commit.
var oursKeys = map[string][]string{
	"sqlite":   {"drain", "latency_p50_ms", "latency_p99_ms", "idle_p50_ms", "idle_p99_ms", "commit"},
	"postgres": {"pg_drain", "pg_latency_p50_ms", "pg_latency_p99_ms", "pg_idle_p50_ms", "pg_idle_p99_ms", "pg_commit"},
}

// oursScenarios are the cmd/bench scenarios that write a store's figures.
var oursScenarios = map[string]string{
	"sqlite":   "db,latency,idle,commit",
	"postgres": "pg-db,pg-latency,pg-idle,pg-commit -pg-synchronous-commit on",
}

// readOurs reads moviesdiary's figures for stores from path (cmd/bench -figures), and says which
// run to repeat when the file is missing, malformed or lacks a figure.
func readOurs(path string, stores []string) (map[string]float64, error) {
	var want []string
	for _, s := range stores {
		want = append(want, oursScenarios[s])
	}
	// stores come in parseStores' order, SQLite first, so the flags after PostgreSQL's come last.
	hint := "run cmd/bench -only " + strings.Join(want, ",") + " -figures FILE first (make bench-peers does)"
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("moviesdiary's figures: %w; %s", err, hint)
	}
	var f map[string]float64
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("moviesdiary's figures in %s: not a JSON object of numbers: %w", path, err)
	}
	for _, k := range slices.Concat(oursKeysOf(stores)...) {
		v, ok := f[k]
		if !ok {
			return nil, fmt.Errorf("moviesdiary's figures in %s: no %q; %s", path, k, hint)
		}
		if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("moviesdiary's figures in %s: %q is %v, want a positive number", path, k, v)
		}
	}
	return f, nil
}

// oursKeysOf are the keys of each of stores.
func oursKeysOf(stores []string) [][]string {
	var out [][]string
	for _, s := range stores {
		out = append(out, oursKeys[s])
	}
	return out
}
