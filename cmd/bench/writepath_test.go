package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
)

func TestWritePathReportsBothModes(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// WRITEPATH_DURATION=5s and WRITEPATH_CLIENTS=16 turn this into a measurement (see the rows with -v).
	d, clients := 200*time.Millisecond, 2
	if v, err := time.ParseDuration(os.Getenv("WRITEPATH_DURATION")); err == nil {
		d = v
	}
	if v, err := strconv.Atoi(os.Getenv("WRITEPATH_CLIENTS")); err == nil {
		clients = v
	}
	modes := sqliteWriteModes(t.TempDir(), []sqlite.Synchronous{sqlite.SynchronousFull}, log)
	rows, _, err := writePath(context.Background(), clients, 1, d, modes, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("%-40s %s", r.scenario, r.result)
	}
	if len(rows) != 3 {
		t.Fatalf("rows = %+v, want outbox, no enqueue and cost", rows)
	}
	for _, r := range rows[:2] {
		if !strings.Contains(r.result, "req/s") || strings.HasPrefix(r.result, "0 ") {
			t.Errorf("row %+v has no rate", r)
		}
	}
	if !strings.Contains(rows[2].result, "ratio") {
		t.Errorf("cost row %+v", rows[2])
	}
}
