package metrics_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// TestWorkerMetricsAfterASmallRun delivers a few events through the real engine and SQLite queue
// and scrapes the endpoint: every named metric is there with the values the run implies.
func TestWorkerMetricsAfterASmallRun(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "m.db"))
	m := metrics.NewWorker(s, log)
	m.Handlers("ok", "bad")
	e, err := delivery.NewEngine(delivery.Config{Logger: log, Observer: m}, s.Ledger(),
		delivery.Handler{Name: "ok", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error { return nil }},
		delivery.Handler{Name: "bad", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
			return domain.Permanent(errors.New("no"))
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Enqueue(ctx, domain.SearchReindexRequested{}, domain.SearchReindexRequested{}, domain.PosterSynced{MovieID: [16]byte{1}}); err != nil {
		t.Fatal(err)
	}
	q := s.Queue(outbox.QueueConfig{Logger: log})
	defer q.Close()
	msgs, err := q.Claim(ctx, 2) // the two reindex events; PosterSynced stays pending
	if err != nil {
		t.Fatal(err)
	}
	var results []delivery.Result
	for _, j := range e.Prepare(ctx, msgs) {
		results = append(results, e.Run(ctx, j, nil))
	}
	if err := q.Settle(ctx, results); err != nil {
		t.Fatal(err)
	}
	m.Redelivered()
	m.Reconnected()

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for metric, want := range map[string]float64{
		`moviesdiary_deliveries_total{handler="ok",outcome="done"}`:           2,
		`moviesdiary_deliveries_total{handler="bad",outcome="dead_lettered"}`: 2,
		`moviesdiary_handler_duration_seconds_count{handler="ok"}`:            2,
		`moviesdiary_queue_events{status="dead_lettered"}`:                    2,
		`moviesdiary_queue_events{status="pending"}`:                          1,
		`moviesdiary_queue_events{status="done"}`:                             0,
		`moviesdiary_jetstream_redeliveries_total`:                            1,
		`moviesdiary_nats_reconnects_total`:                                   1,
	} {
		got, ok := value(body, metric)
		if !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", metric, got, ok, want)
		}
	}
	age, ok := value(body, "moviesdiary_queue_oldest_pending_age_seconds")
	if !ok || age < 0 || age > float64(time.Minute/time.Second) {
		t.Errorf("oldest pending age %v (present %v)", age, ok)
	}
	if v, ok := value(body, `moviesdiary_ledger_takeovers_total{handler="ok"}`); !ok || v != 0 {
		t.Errorf("take-overs for ok = %v (present %v), want 0", v, ok)
	}
}

func value(body, metric string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(metric) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

// fakeOutbox hands out rows in two scrapes.
type fakeOutbox struct{ calls []int64 }

func (f *fakeOutbox) EventsSince(_ context.Context, cursor int64) (map[string]int, int64, error) {
	f.calls = append(f.calls, cursor)
	if cursor == 0 {
		return map[string]int{"ReviewLogged": 3}, 7, nil
	}
	return map[string]int{"ReviewLogged": 1, "MovieDiscovered": 2}, 10, nil
}

// TestEventsEnqueuedCountsNewRowsOnce: each scrape reads only rows past the last one counted and
// adds them to running totals.
func TestEventsEnqueuedCountsNewRowsOnce(t *testing.T) {
	s := metrics.NewServer()
	src := &fakeOutbox{}
	s.CountEnqueued(src, slog.New(slog.NewTextHandler(io.Discard, nil)))
	scrape := func() string {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	scrape()
	body := scrape()
	if v, _ := value(body, `moviesdiary_events_enqueued_total{type="ReviewLogged"}`); v != 4 {
		t.Errorf("ReviewLogged = %v, want 4", v)
	}
	if v, _ := value(body, `moviesdiary_events_enqueued_total{type="MovieDiscovered"}`); v != 2 {
		t.Errorf("MovieDiscovered = %v, want 2", v)
	}
	if len(src.calls) != 2 || src.calls[1] != 7 {
		t.Errorf("cursor passed %v, want [0 7]", src.calls)
	}
}
