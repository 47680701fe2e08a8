package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/domain"
)

// logRecords collects a logger's records as attribute maps (with "msg" and "level").
type logRecords struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (l *logRecords) logger() *slog.Logger { return slog.New(&recordHandler{l: l}) }

// with returns the records whose message is msg.
func (l *logRecords) with(msg string) []map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]string
	for _, r := range l.recs {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

type recordHandler struct{ l *logRecords }

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.l.mu.Lock()
	h.l.recs = append(h.l.recs, m)
	h.l.mu.Unlock()
	return nil
}

// migrateURL opens a store on url and migrates it as a server or worker does at start-up.
func migrateURL(t testing.TB, url string, log *slog.Logger) error {
	t.Helper()
	s, err := postgres.OpenMigrated(context.Background(), url, log)
	if err != nil {
		return err
	}
	return s.Close()
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestAdoptRefusesAnOlderOriginal: a database the original left at an older schema is refused,
// unchanged, with the way forward in the error (not PostgreSQL's "relation already exists").
func TestAdoptRefusesAnOlderOriginal(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	if _, err := db.Exec(`DELETE FROM _sqlx_migrations WHERE version = 29`); err != nil {
		t.Fatal(err)
	}
	before := dumpDB(t, db)
	err := migrateURL(t, url, discard())
	if err == nil || !strings.Contains(err.Error(), "last movies-diary release") {
		t.Fatalf("migrate an older original: %v, want a refusal naming the way forward", err)
	}
	if dumpDB(t, db) != before {
		t.Error("a refused adoption changed the database")
	}
}

// TestAdoptRefusesAMissingColumn: a table of the original's last schema without one of its
// columns, or a table missing, is not that schema: refused unchanged, naming both.
func TestAdoptRefusesAMissingColumn(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	if _, err := db.Exec(`ALTER TABLE reviews DROP COLUMN watch_medium; DROP TABLE ap_announces`); err != nil {
		t.Fatal(err)
	}
	before := dumpDB(t, db)
	err := migrateURL(t, url, discard())
	if err == nil || !strings.Contains(err.Error(), "column reviews.watch_medium") || !strings.Contains(err.Error(), "table ap_announces") {
		t.Fatalf("migrate without reviews.watch_medium and ap_announces: %v, want a refusal naming both", err)
	}
	if dumpDB(t, db) != before {
		t.Error("a refused adoption changed the database")
	}
}

// TestAdoptRefusesAQueueVersionWithoutItsTable: version 100 without event_queue is neither shape
// the original leaves.
func TestAdoptRefusesAQueueVersionWithoutItsTable(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	if _, err := db.Exec(`DROP TABLE event_queue`); err != nil {
		t.Fatal(err)
	}
	before := dumpDB(t, db)
	if err := migrateURL(t, url, discard()); err == nil || !strings.Contains(err.Error(), "event_queue") {
		t.Fatalf("migrate without event_queue but with its version: %v, want a refusal naming it", err)
	}
	if dumpDB(t, db) != before {
		t.Error("a refused adoption changed the database")
	}
}

var _ = fmt.Sprint
var _ = domain.LegacyUnknown
