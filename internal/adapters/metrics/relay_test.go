package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/metrics"
)

type emptyQueue struct{}

func (emptyQueue) QueueCounts(context.Context) (map[string]int, error) { return map[string]int{}, nil }
func (emptyQueue) OldestPending(context.Context) (time.Duration, bool, error) {
	return 0, false, nil
}

// TestRelayPausedAndBuildInfo: the relay gauge follows pause and resume; both binaries report
// moviesdiary_build_info with their service label.
func TestRelayPausedAndBuildInfo(t *testing.T) {
	t.Parallel()
	w := metrics.NewWorker(emptyQueue{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	scrape := func() string {
		rec := httptest.NewRecorder()
		w.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	for _, c := range []struct {
		paused *bool
		want   float64
	}{{nil, 0}, {ptr(true), 1}, {ptr(false), 0}} {
		if c.paused != nil {
			w.RelayPaused(*c.paused)
		}
		if v, ok := value(scrape(), "moviesdiary_relay_paused"); !ok || v != c.want {
			t.Errorf("after %v: moviesdiary_relay_paused = %v (%v), want %v", c.paused, v, ok, c.want)
		}
	}
	if body := scrape(); !strings.Contains(body, `moviesdiary_build_info{`) || !strings.Contains(body, `service="worker"`) {
		t.Error("the worker lacks moviesdiary_build_info{service=\"worker\"}")
	}
	rec := httptest.NewRecorder()
	metrics.NewServer().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `service="server"`) {
		t.Error("the server lacks moviesdiary_build_info{service=\"server\"}")
	}
}

func ptr[T any](v T) *T { return &v }

// TestDiskGauges reads the file system of a real directory.
func TestDiskGauges(t *testing.T) {
	t.Parallel()
	s := metrics.NewServer()
	s.WatchDisk(t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	free, ok1 := value(rec.Body.String(), "moviesdiary_data_dir_free_bytes")
	size, ok2 := value(rec.Body.String(), "moviesdiary_data_dir_size_bytes")
	if !ok1 || !ok2 || size <= 0 || free < 0 || free > size {
		t.Fatalf("free %v (%v), size %v (%v)", free, ok1, size, ok2)
	}
}
