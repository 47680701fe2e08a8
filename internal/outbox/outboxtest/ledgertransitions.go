package outboxtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/outbox"
)

// runLedgerTransitions checks each store's ledger against outbox.Lifecycle's half for
// processed_events: for every entry (none, held, expired, done), a claim answers and leaves what
// ClaimEntry says, and a done mark, a release and a renewal with the entry's token or a stale
// one leave what MarkEntry and RenewEntry say.
func runLedgerTransitions(t *testing.T, open func(t *testing.T, clock *Clock) Outbox) {
	clock := NewClock(time.Now().Truncate(time.Millisecond))
	s := open(t, clock)
	ctx := context.Background()
	const lease = 30 * time.Minute
	now := clock.Now()
	ms := now.UnixMilli()
	entries := []struct {
		name string
		e    outbox.Entry
	}{
		{"none", outbox.Entry{}},
		{"held", outbox.Entry{Status: outbox.InProgress, StartedAt: ms - lease.Milliseconds() + 1}},
		{"expired", outbox.Entry{Status: outbox.InProgress, StartedAt: ms - lease.Milliseconds(), Takeovers: 1}},
		{"done", outbox.Entry{Status: outbox.Handled, StartedAt: ms - lease.Milliseconds()}},
	}
	n := 0
	key := func() delivery.Key {
		n++
		return delivery.Key{EventID: fmt.Sprintf("ledger-%d", n), Handler: "h"}
	}
	for _, c := range entries {
		k := key()
		setEntry(t, s, k, c.e)
		want, answer := outbox.ClaimEntry(c.e, ms, lease)
		got, err := s.Ledger.Claim(ctx, now, lease, []delivery.Key{k})
		if err != nil {
			t.Fatal(err)
		}
		answer.Key = k
		if got[0] != answer {
			t.Errorf("Claim/%s: the store answered %+v, the Lifecycle says %+v", c.name, got[0], answer)
		}
		if e := readEntry(t, s, k); e != want {
			t.Errorf("Claim/%s: the store left %+v, the Lifecycle says %+v", c.name, e, want)
		}
		for _, stale := range []bool{false, true} {
			token := c.e.StartedAt
			if stale {
				token--
			}
			for _, done := range []bool{true, false} {
				k := key()
				setEntry(t, s, k, c.e)
				m := delivery.Mark{Key: k, Token: token, Done: done}
				want, _ := outbox.MarkEntry(c.e, m, ms)
				if err := s.Ledger.Settle(ctx, now, []delivery.Mark{m}); err != nil {
					t.Fatal(err)
				}
				if e := readEntry(t, s, k); e != want {
					t.Errorf("Mark/%s/stale=%t/done=%t: the store left %+v, the Lifecycle says %+v", c.name, stale, done, e, want)
				}
			}
			k := key()
			setEntry(t, s, k, c.e)
			want, renewed := outbox.RenewEntry(c.e, token, ms)
			held, err := s.Ledger.Renew(ctx, now, []delivery.Mark{{Key: k, Token: token}})
			if err != nil {
				t.Fatal(err)
			}
			if e := readEntry(t, s, k); e != want || held[0] != renewed {
				t.Errorf("Renew/%s/stale=%t: the store left %+v (renewed %t), the Lifecycle says %+v (%t)", c.name, stale, e, held[0], want, renewed)
			}
		}
	}
}

// setEntry puts the processed_events row of k in state e (none: no row).
func setEntry(t *testing.T, s Outbox, k delivery.Key, e outbox.Entry) {
	t.Helper()
	if _, err := s.DB.Exec(s.DB.Rebind(`DELETE FROM processed_events WHERE event_id = ? AND handler = ?`), k.EventID, k.Handler); err != nil {
		t.Fatal(err)
	}
	if e.Status == "" {
		return
	}
	var processed any
	if e.Status == outbox.Handled {
		processed = e.StartedAt
	}
	if _, err := s.DB.Exec(s.DB.Rebind(`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at, takeovers)
		VALUES (?, ?, ?, ?, ?, ?)`), k.EventID, k.Handler, e.Status, e.StartedAt, processed, e.Takeovers); err != nil {
		t.Fatal(err)
	}
}

// readEntry reads the processed_events row of k (none: the zero Entry).
func readEntry(t *testing.T, s Outbox, k delivery.Key) outbox.Entry {
	t.Helper()
	var e outbox.Entry
	err := s.DB.QueryRow(s.DB.Rebind(`SELECT status, started_at, takeovers FROM processed_events WHERE event_id = ? AND handler = ?`),
		k.EventID, k.Handler).Scan(&e.Status, &e.StartedAt, &e.Takeovers)
	if errors.Is(err, sql.ErrNoRows) {
		return outbox.Entry{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}
