package delivery_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// rowRef stands for a source's handle that knows its row id (the sqlite queue's does).
type rowRef int64

func (r rowRef) RowID() int64 { return int64(r) }

// TestForeignRowLogLinesCarryTheRowID: a row without an event id (a foreign writer's) is named
// by its row id in every delivery line; a row with one does not need it.
func TestForeignRowLogLinesCarryTheRowID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e, err := delivery.NewEngine(delivery.Config{Logger: log}, memLedger{},
		delivery.Handler{Name: "flaky", Types: []string{"ImageStored"}, Handle: func(context.Context, delivery.Envelope) error {
			return errors.New("connection reset")
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	foreign := message(t, "", domain.ImageStored{Key: "k"}, 1)
	foreign.Ref = rowRef(4242)
	owned := message(t, "e-1", domain.ImageStored{Key: "k"}, 1)
	owned.Ref = rowRef(7)
	for _, j := range e.Prepare(ctx, []delivery.Message{foreign, owned}) {
		e.Run(ctx, j, nil)
	}
	var foreignLines int
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		switch {
		case strings.Contains(line, `"event_id":""`):
			foreignLines++
			if !strings.Contains(line, `"row_id":4242`) {
				t.Errorf("a foreign row's line lacks its row id: %s", line)
			}
		case strings.Contains(line, `"row_id"`):
			t.Errorf("a row with an event id logs a row id: %s", line)
		}
	}
	if foreignLines == 0 {
		t.Fatalf("no line for the foreign row:\n%s", buf.String())
	}
}

// TestEnvelopeCarriesTheRowID: a handler sees the row id of the message it handles, so it can
// key an id-less row by its row (two foreign rows with equal payloads are two events).
func TestEnvelopeCarriesTheRowID(t *testing.T) {
	t.Parallel()
	var got []int64
	e, err := delivery.NewEngine(delivery.Config{}, memLedger{},
		delivery.Handler{Name: "rows", Types: []string{"ImageStored"}, Handle: func(_ context.Context, env delivery.Envelope) error {
			got = append(got, env.RowID)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, b := message(t, "", domain.ImageStored{Key: "k"}, 1), message(t, "", domain.ImageStored{Key: "k"}, 1)
	a.RowID, b.RowID = 41, 42
	for _, j := range e.Prepare(ctx, []delivery.Message{a, b}) {
		e.Run(ctx, j, nil)
	}
	if len(got) != 2 || got[0] != 41 || got[1] != 42 {
		t.Errorf("handler saw row ids %v, want [41 42]", got)
	}
}
