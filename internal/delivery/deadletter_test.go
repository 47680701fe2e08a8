package delivery_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// countingObserver counts outcomes by handler/outcome.
type countingObserver struct {
	mu sync.Mutex
	n  map[string]int
}

func (o *countingObserver) HandlerOutcome(handler, outcome string, _ time.Duration) {
	o.mu.Lock()
	o.n[handler+"/"+outcome]++
	o.mu.Unlock()
}
func (o *countingObserver) LedgerTakeOver(string) {}

// TestEveryDeadLetterIsCounted: each way an event can be dead-lettered by a delivery — a
// permanent error, a transient one on the last attempt, an undecodable payload, an unknown event
// type — counts one dead_lettered outcome, and the last attempt is not logged as "will be
// retried". (Before, a worker with these four dead letters reported one.)
func TestEveryDeadLetterIsCounted(t *testing.T) {
	t.Parallel()
	const maxAttempts = 3
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	obs := &countingObserver{n: map[string]int{}}
	e, err := delivery.NewEngine(delivery.Config{Logger: log, Observer: obs, MaxAttempts: maxAttempts}, memLedger{},
		delivery.Handler{Name: "strict", Types: []string{"PosterSynced"}, Handle: func(context.Context, delivery.Envelope) error {
			return domain.Permanent(errors.New("remote said 410"))
		}},
		delivery.Handler{Name: "flaky", Types: []string{"SearchReindexRequested"}, Handle: func(context.Context, delivery.Envelope) error {
			return errors.New("connection reset")
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := []delivery.Message{
		message(t, "permanent", domain.PosterSynced{MovieID: uuid.New()}, 1),
		message(t, "last-attempt", domain.SearchReindexRequested{}, maxAttempts),
		{EventID: "undecodable", Type: "SearchReindexRequested", Payload: []byte(`{not json`), Attempt: 1},
		{EventID: "unknown", Type: "NoSuchEvent", Payload: []byte(`{}`), Attempt: 1},
	}
	for _, j := range e.Prepare(ctx, msgs) {
		if r := e.Run(ctx, j, nil); r.Kind != delivery.DeadLetter || r.Err == nil {
			t.Errorf("%s: %v (%v), want dead-lettered with its error", j.Msg.EventID, r.Kind, r.Err)
		}
	}
	want := map[string]int{"strict/dead_lettered": 1, "flaky/dead_lettered": 1, delivery.NoHandler + "/dead_lettered": 2}
	obs.mu.Lock()
	for k, n := range want {
		if obs.n[k] != n {
			t.Errorf("%s counted %d times, want %d (all: %v)", k, obs.n[k], n, obs.n)
		}
	}
	obs.mu.Unlock()
	if strings.Contains(buf.String(), "will be retried") {
		t.Errorf("the last attempt was logged as retried:\n%s", buf.String())
	}
	// One attempt earlier the same failure is a retry.
	jobs := e.Prepare(ctx, []delivery.Message{message(t, "earlier", domain.SearchReindexRequested{}, maxAttempts-1)})
	if r := e.Run(ctx, jobs[0], nil); r.Kind != delivery.Retry {
		t.Fatalf("attempt %d: %v, want a retry", maxAttempts-1, r.Kind)
	}
}
