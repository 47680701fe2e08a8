package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// TestDeliveryLogLines: one line per handler outcome at its level — debug for done, warn for a
// transient failure, error for a permanent one — each with event_id, event_type, handler and
// attempt, and never the payload.
func TestDeliveryLogLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ok := func(context.Context, delivery.Envelope) error { return nil }
	e, err := delivery.NewEngine(delivery.Config{Logger: log}, memLedger{},
		delivery.Handler{Name: "fine", Types: []string{"ImageStored"}, Handle: ok},
		delivery.Handler{Name: "flaky", Types: []string{"ImageStored"}, Handle: func(context.Context, delivery.Envelope) error {
			return errors.New("connection reset")
		}},
		delivery.Handler{Name: "strict", Types: []string{"ImageStored"}, Handle: func(context.Context, delivery.Envelope) error {
			return domain.Permanent(errors.New("remote said 410"))
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret := "payload-marker-7f3a"
	jobs := e.Prepare(ctx, []delivery.Message{message(t, "e-1", domain.ImageStored{Key: secret}, 3)})
	e.Run(ctx, jobs[0], nil)

	levels := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.Contains(line, secret) {
			t.Errorf("a log line carries the payload: %s", line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["event_id"] != "e-1" || rec["event_type"] != "ImageStored" || rec["attempt"] != float64(3) {
			t.Errorf("line without the delivery fields: %s", line)
		}
		if h, ok := rec["handler"].(string); ok {
			if levels[h] != "" {
				t.Errorf("two lines for handler %s", h)
			}
			levels[h] = rec["level"].(string)
		}
	}
	want := map[string]string{"fine": "DEBUG", "flaky": "WARN", "strict": "ERROR"}
	for h, lvl := range want {
		if levels[h] != lvl {
			t.Errorf("handler %s logged at %q, want %s", h, levels[h], lvl)
		}
	}
}
