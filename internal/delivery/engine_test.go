package delivery_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// memLedger acquires every claim; enough for rules that do not involve the ledger.
type memLedger struct{}

func (memLedger) Claim(_ context.Context, now time.Time, _ time.Duration, keys []delivery.Key) ([]delivery.Claim, error) {
	cs := make([]delivery.Claim, len(keys))
	for i, k := range keys {
		cs[i] = delivery.Claim{Key: k, State: delivery.Acquired, Token: now.UnixMilli()}
	}
	return cs, nil
}

func (memLedger) Renew(_ context.Context, _ time.Time, claims []delivery.Mark) ([]bool, error) {
	held := make([]bool, len(claims))
	for i := range held {
		held[i] = true
	}
	return held, nil
}

func message(t *testing.T, id string, e domain.Event, attempt int) delivery.Message {
	t.Helper()
	payload, err := domain.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	return delivery.Message{EventID: id, Type: e.EventType(), Payload: payload, Attempt: attempt}
}

func TestNewEngineRejectsBadRegistrations(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, delivery.Envelope) error { return nil }
	for name, hs := range map[string][]delivery.Handler{
		"unnamed":   {{Types: []string{"PosterSynced"}, Handle: noop}},
		"no func":   {{Name: "a", Types: []string{"PosterSynced"}}},
		"duplicate": {{Name: "a", Handle: noop}, {Name: "a", Handle: noop}},
	} {
		if _, err := delivery.NewEngine(delivery.Config{}, memLedger{}, hs...); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

// TestPanickingHandlerIsRetried: a panic is a transient failure with its message kept, and the
// ledger claim is released so the next delivery runs the handler again.
func TestPanickingHandlerIsRetried(t *testing.T) {
	t.Parallel()
	e, err := delivery.NewEngine(delivery.Config{Logger: deliverytest.Logger(t)}, memLedger{}, delivery.Handler{
		Name: "boom", Types: []string{"SearchReindexRequested"},
		Handle: func(context.Context, delivery.Envelope) error { panic("nil map") },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	jobs := e.Prepare(ctx, []delivery.Message{message(t, "e1", domain.SearchReindexRequested{}, 2)})
	r := e.Run(ctx, jobs[0], nil)
	if r.Kind != delivery.Retry || r.Delay != 10*time.Second || !strings.Contains(r.Err.Error(), "panicked: nil map") {
		t.Fatalf("result %v delay %s err %v; want retry after 10s (attempt 2) with the panic", r.Kind, r.Delay, r.Err)
	}
	if len(r.Marks) != 1 || r.Marks[0].Done {
		t.Fatalf("marks %+v; want the claim released", r.Marks)
	}
}

// TestEventWithoutHandlersIsAcked: a known event type nobody handles is done, not retried.
func TestEventWithoutHandlersIsAcked(t *testing.T) {
	t.Parallel()
	e, err := delivery.NewEngine(delivery.Config{Logger: deliverytest.Logger(t)}, memLedger{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	jobs := e.Prepare(ctx, []delivery.Message{message(t, "e1", domain.SearchReindexRequested{}, 1)})
	if r := e.Run(ctx, jobs[0], nil); r.Kind != delivery.Ack {
		t.Fatalf("result %v, want ack", r.Kind)
	}
}
