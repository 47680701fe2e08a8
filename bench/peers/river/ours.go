package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// oursKeys are the figures cmd/bench -figures writes that this benchmark compares with.
var oursKeys = []string{"drain", "latency_p50_ms", "latency_p99_ms", "idle_p50_ms", "idle_p99_ms", "write"}

// readOurs reads moviesdiary's figures from path (cmd/bench -figures), and says which run to
// repeat when the file is missing, malformed or lacks a figure.
func readOurs(path string) (map[string]float64, error) {
	const hint = "run cmd/bench -only db,latency,idle,write -figures FILE first (make bench-peers does)"
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("moviesdiary's figures: %w; %s", err, hint)
	}
	var f map[string]float64
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("moviesdiary's figures in %s: not a JSON object of numbers: %w", path, err)
	}
	for _, k := range oursKeys {
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
