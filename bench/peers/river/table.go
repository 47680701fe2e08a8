package main

import (
	"fmt"
	"io"
)

// comparison is one row of the result: moviesdiary's figure, River's, and how to print each.
type comparison struct {
	scenario          string
	ours, river       float64
	oursFmt, riverFmt string
	// lowerIsBetter marks latencies, whose ratio below 1 favours moviesdiary.
	lowerIsBetter bool
}

// printTable prints rows as a Markdown table, so a run pastes into docs/benchmarks.md as is.
func printTable(w io.Writer, rows []comparison) {
	fmt.Fprintln(w, "| scenario | moviesdiary | River | moviesdiary ÷ River |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		ratio := "n/a"
		if r.river > 0 {
			ratio = fmt.Sprintf("%.2f", r.ours/r.river)
			if r.lowerIsBetter {
				ratio += " (lower is better)"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.scenario, fmt.Sprintf(r.oursFmt, r.ours), fmt.Sprintf(r.riverFmt, r.river), ratio)
	}
}
