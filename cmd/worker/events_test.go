package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// eventsFixture is a database holding one row in each status, plus ledger rows for the dead one.
type eventsFixture struct {
	cfg config.Config
	db  *sql.DB
	ids map[string]string // status → event id
}

// eachStore runs test on a fixture in a SQLite file and in a PostgreSQL database: the operators'
// commands are the same on both.
func eachStore(t *testing.T, test func(t *testing.T, f *eventsFixture)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) { test(t, newEventsFixture(t, kind)) })
	}
}

func newEventsFixture(t *testing.T, kind string) *eventsFixture {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	s, url, db := openFixtureStore(t, kind, "events.db")
	defer s.Close()
	if err := s.Enqueue(ctx, domain.SearchReindexRequested{}, domain.SearchReindexRequested{},
		domain.PosterSynced{MovieID: [16]byte{1}}, domain.PosterSynced{MovieID: [16]byte{2}}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	for _, q := range []string{
		`UPDATE event_queue SET status = 'done', created_at = ` + itoa(old) + ` WHERE id = 1`,
		`UPDATE event_queue SET status = 'processing', claimed_at = 1 WHERE id = 3`,
		`UPDATE event_queue SET status = 'dead_lettered', attempts = 5, last_error = 'noop-0: remote said 503' WHERE id = 4`,
		`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at) SELECT event_id, 'a', 'done', 1, 2 FROM event_queue WHERE id = 4`,
		`INSERT INTO processed_events (event_id, handler, status, started_at, processed_at) SELECT event_id, 'b', 'in_progress', 1, NULL FROM event_queue WHERE id = 4`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	f := &eventsFixture{cfg: config.Config{DatabaseURL: url, DataDir: dir}, db: db, ids: map[string]string{}}
	rows, err := db.Query(`SELECT status, event_id FROM event_queue`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var st, id string
		rows.Scan(&st, &id)
		f.ids[st] = id
	}
	return f
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (f *eventsFixture) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = eventsCommand(context.Background(), f.cfg, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestEventsStats(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		code, out, _ := f.run(t, "stats", "--json")
		var st struct {
			ByStatus map[string]int            `json:"by_status"`
			ByType   map[string]map[string]int `json:"by_type"`
			Oldest   *float64                  `json:"oldest_pending_age_seconds"`
		}
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
			t.Fatalf("exit %d, %v: %s", code, err, out)
		}
		if st.ByStatus["done"] != 1 || st.ByStatus["pending"] != 1 || st.ByStatus["processing"] != 1 || st.ByStatus["dead_lettered"] != 1 ||
			st.ByType["PosterSynced"]["dead_lettered"] != 1 || st.Oldest == nil || *st.Oldest < 0 {
			t.Fatalf("stats %+v", st)
		}
		code, out, _ = f.run(t, "stats")
		if code != 0 || !regexp.MustCompile(`(?m)^dead_lettered +1$`).MatchString(out) || !strings.Contains(out, "PosterSynced") {
			t.Fatalf("human stats (exit %d):\n%s", code, out)
		}
	})
}

func TestEventsListAndShow(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		code, out, _ := f.run(t, "list")
		if code != 0 || !strings.Contains(out, f.ids["dead_lettered"]) || strings.Contains(out, f.ids["pending"]) ||
			!strings.Contains(out, "remote said 503") {
			t.Fatalf("list (default dead_lettered), exit %d:\n%s", code, out)
		}
		code, out, _ = f.run(t, "list", "--status", "all", "--type", "SearchReindexRequested", "--json")
		var rows []outbox.EventRow
		if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 2 {
			t.Fatalf("list all of a type: exit %d, %v, %d rows", code, err, len(rows))
		}
		code, out, _ = f.run(t, "show", f.ids["dead_lettered"], "--json")
		var shown struct {
			Status    string          `json:"status"`
			Attempts  int             `json:"attempts"`
			LastError string          `json:"last_error"`
			Payload   json.RawMessage `json:"payload"`
			Ledger    []struct {
				Handler, Status string
			} `json:"ledger"`
		}
		if err := json.Unmarshal([]byte(out), &shown); code != 0 || err != nil {
			t.Fatalf("show: exit %d, %v: %s", code, err, out)
		}
		if shown.Status != "dead_lettered" || shown.Attempts != 5 || !strings.Contains(string(shown.Payload), "PosterSynced") ||
			len(shown.Ledger) != 2 || shown.Ledger[0].Status != "done" || shown.Ledger[1].Status != "in_progress" {
			t.Fatalf("show: %+v", shown)
		}
		if code, _, errOut := f.run(t, "show", "00000000-0000-0000-0000-000000000000"); code != 1 || !strings.Contains(errOut, "not found") {
			t.Fatalf("show unknown: exit %d, %s", code, errOut)
		}
	})
}

func TestEventsRetry(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		code, out, _ := f.run(t, "retry", f.ids["dead_lettered"], f.ids["processing"], "--json")
		if code != 0 || !strings.Contains(out, `"retried": 1`) || !strings.Contains(out, `"skipped_not_dead_lettered": 1`) {
			t.Fatalf("retry: exit %d, %s", code, out)
		}
		var status, eventID string
		var attempts int
		var claimed sql.NullInt64
		f.db.QueryRow(`SELECT status, attempts, event_id FROM event_queue WHERE id = 4`).Scan(&status, &attempts, &eventID)
		f.db.QueryRow(`SELECT claimed_at FROM event_queue WHERE id = 3`).Scan(&claimed)
		if status != "pending" || attempts != 0 || eventID != f.ids["dead_lettered"] || !claimed.Valid {
			t.Fatalf("after retry: %s attempts %d id %s; processing row claim %v (must be untouched)", status, attempts, eventID, claimed)
		}
		f.db.Exec(`UPDATE event_queue SET status = 'dead_lettered' WHERE id IN (2, 4)`)
		if code, out, _ := f.run(t, "retry", "--all-dead", "--type", "PosterSynced"); code != 0 || !strings.Contains(out, "retried 1 event") {
			t.Fatalf("retry --all-dead --type: exit %d, %s", code, out)
		}
		if code, _, _ := f.run(t, "retry"); code != 2 {
			t.Fatalf("retry with nothing: exit %d, want 2", code)
		}
	})
}

func TestEventsPurge(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		if code, _, _ := f.run(t, "purge"); code != 2 {
			t.Fatalf("purge without an age: exit %d, want 2", code)
		}
		code, out, _ := f.run(t, "purge", "--done-older-than", "30d", "--json")
		if code != 0 || !strings.Contains(out, `"purged": 1`) {
			t.Fatalf("purge: exit %d, %s", code, out)
		}
		var n int
		f.db.QueryRow(`SELECT count(*) FROM event_queue`).Scan(&n)
		if n != 3 {
			t.Fatalf("%d rows left, want 3 (only the old done row purged)", n)
		}
	})
}

func TestEventsUsageErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		for _, args := range [][]string{{}, {"frobnicate"}, {"list", "--status", "weird"}, {"show"}, {"stats", "--bogus"}} {
			if code, _, errOut := f.run(t, args...); code != 2 || !strings.Contains(errOut, "usage") {
				t.Errorf("%v: exit %d, stderr %q; want 2 with usage", args, code, errOut)
			}
		}
	})
}
