package httpapi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/domain"

	"github.com/jmoiron/sqlx"
)

// TestDatabaseFullIs503AndNotReady: with the database unable to grow (SQLite's max_page_count
// pinned to the file's size: a real SQLITE_FULL), a write answers 503 with Retry-After and a
// message naming the full database, /ready is 503, and both recover as soon as there is room
// again, with nothing restarted.
func TestDatabaseFullIs503AndNotReady(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	maxPages := func(n int) {
		t.Helper()
		if err := b.writer(context.Background(), func(tx *sqlx.Tx) error {
			_, err := tx.Exec(`PRAGMA max_page_count = ` + strconv.Itoa(n))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	b.must(200, req{method: "GET", path: "/ready"})
	maxPages(1) // SQLite keeps the current size: the file cannot grow any more
	post := func(i int) response {
		return b.do(req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
			"manual_title": "Film " + strconv.Itoa(i) + strings.Repeat(" long title", 20), "manual_release_year": 1995,
			"rating": 4, "watched_at": "2024-03-01", "comment": strings.Repeat("a comment that takes room. ", 100),
		}})
	}
	var full response
	for i := range 500 {
		if full = post(i); full.status != 201 {
			break
		}
	}
	if full.status != 503 {
		t.Fatalf("writes into a full database: %d %s, want 503", full.status, full.body)
	}
	if msg := full.errorMessage(t); !strings.Contains(msg, "database is full") {
		t.Errorf("message %q does not name the full database", msg)
	}
	if ra, err := strconv.Atoi(full.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want seconds", full.header.Get("Retry-After"))
	}
	if r := b.do(req{method: "GET", path: "/ready"}); r.status != 503 || !strings.Contains(string(r.body), "full") {
		t.Errorf("/ready with a full database: %d %s, want 503 naming it", r.status, r.body)
	}
	maxPages(1 << 30) // space is back
	b.must(200, req{method: "GET", path: "/ready"})
	if r := post(-1); r.status != 201 {
		t.Errorf("write after space returned: %d %s, want 201", r.status, r.body)
	}
}

// TestFullDataDirectoryIsNotReady: when the data directory refuses a write with ENOSPC (the
// probe file made a link to /dev/full, which answers every write so), /ready is 503 naming the
// full directory, and ready again once writes succeed.
func TestFullDataDirectoryIsNotReady(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Fatalf("the test writes to Linux's /dev/full: %v", err)
	}
	b := setup(t)
	probe := filepath.Join(filepath.Dir(b.store.Path()), ".moviesdiary-write-probe")
	_ = os.Remove(probe)
	if err := os.Symlink("/dev/full", probe); err != nil {
		t.Fatal(err)
	}
	r := b.do(req{method: "GET", path: "/ready"})
	if r.status != 503 || !strings.Contains(string(r.body), "data directory is full") {
		t.Errorf("/ready with ENOSPC in the data directory: %d %s, want 503 naming it", r.status, r.body)
	}
	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	b.must(200, req{method: "GET", path: "/ready"})
}

// TestReadyNamesWhatIsDownNotHowToReachIt: /ready answers 503 with Retry-After and says what is
// down, never the cause's connection details (a driver's error names the database user, its
// name and its socket), which go to the log only.
func TestReadyNamesWhatIsDownNotHowToReachIt(t *testing.T) {
	t.Parallel()
	cause := errors.New("failed to connect to `user=diaryowner database=secretdb`: /var/run/postgresql/.s.PGSQL.5432: connection refused")
	for _, c := range []struct {
		err  error
		want string
	}{
		{httpapi.NotReady("the database does not answer", cause), "the database does not answer"},
		{&domain.UnavailableError{What: "database", Err: cause}, "the database does not answer"},
		{cause, "not ready"},
	} {
		b := setup(t, options{ready: func(context.Context) error { return c.err }})
		r := b.do(req{method: "GET", path: "/ready"})
		if r.status != 503 || !strings.Contains(string(r.body), c.want) || r.header.Get("Retry-After") == "" {
			t.Errorf("/ready: %d %s (Retry-After %q), want 503 saying %q with a Retry-After", r.status, r.body,
				r.header.Get("Retry-After"), c.want)
		}
		for _, secret := range []string{"diaryowner", "secretdb", "/var/run"} {
			if strings.Contains(string(r.body), secret) {
				t.Errorf("/ready answers %s, naming %q", r.body, secret)
			}
		}
	}
}
