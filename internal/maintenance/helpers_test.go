package maintenance

import (
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/sqlstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The SQLite adapter satisfies every port as it is.
var (
	_ Lease       = (*sqlite.Store)(nil)
	_ Ledger      = (*sqlstore.Ledger)(nil)
	_ Outbox      = (*sqlite.Store)(nil)
	_ WrapUps     = (*sqlite.Store)(nil)
	_ Enrichments = (*sqlite.Store)(nil)
	_ Sessions    = (*sqlite.Store)(nil)
)

// bundle is a migrated store in the test's directory, a second connection to read and write
// rows directly, and a job config with a fixed clock and logs to t.Log.
type bundle struct {
	store *sqlite.Store
	db    *sql.DB
	now   time.Time
	cfg   JobConfig
}

func setup(t *testing.T) *bundle {
	t.Helper()
	path := filepath.Join(t.TempDir(), "maintenance.db")
	b := &bundle{store: sqlitetest.Open(t, path), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b.db = db
	b.cfg = JobConfig{Logger: testLogger(t), Now: func() time.Time { return b.now }}
	return b
}

func testLogger(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

func (b *bundle) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := b.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (b *bundle) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := b.db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
