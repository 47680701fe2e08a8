package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/mattn/go-sqlite3"

	"moviesdiary/internal/adapters/sqlstore"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
)

// writeCounter counts, through SQLite's update and commit hooks on the writer's connection, the
// import rows each committed write transaction deleted: how long a deletion holds the one writer,
// counted in rows rather than timed.
type writeCounter struct {
	mu      sync.Mutex
	pending int // deleted by the open transaction
	most    int // the most one committed transaction deleted
	total   int
}

// hookWriter counts the writer driver's connections opened from now until the test ends.
// Not for parallel tests: it changes the registered driver.
func hookWriter(t *testing.T) *writeCounter {
	db, err := sql.Open(writerDriverName, "")
	if err != nil {
		t.Fatal(err)
	}
	d := db.Driver().(shieldDriver).SQLiteDriver
	db.Close()
	w := &writeCounter{}
	connect := d.ConnectHook
	d.ConnectHook = func(c *sqlite3.SQLiteConn) error {
		c.RegisterUpdateHook(func(op int, _, table string, _ int64) {
			if op == sqlite3.SQLITE_DELETE && table == "import_rows" {
				w.mu.Lock()
				w.pending++
				w.total++
				w.mu.Unlock()
			}
		})
		c.RegisterCommitHook(func() int {
			w.mu.Lock()
			w.most, w.pending = max(w.most, w.pending), 0
			w.mu.Unlock()
			return 0
		})
		c.RegisterRollbackHook(func() {
			w.mu.Lock()
			w.pending = 0
			w.mu.Unlock()
		})
		return connect(c)
	}
	t.Cleanup(func() { d.ConnectHook = connect })
	return w
}

// TestDeletingAnImportYieldsTheWriter: deleting a session of 2,000 rows (a failed upload's
// cleanup, or an expired session's) held the writer for one transaction of every row — 17–22 s
// with 20 MB cells. Each transaction now deletes at most sqlstore.ImportDeleteBatch rows, and
// every other write gets its turn between two of them. Not parallel: it hooks the writer driver.
func TestDeletingAnImportYieldsTheWriter(t *testing.T) {
	w := hookWriter(t)
	ctx := context.Background()
	s := newStore(t)
	user, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "alice@example.test", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	upload := func(n int, expires time.Time) uuid.UUID {
		t.Helper()
		is := importer.Session{ID: uuid.New(), UserID: user.ID, Format: "csv", Kind: importer.KindCustom, Target: importer.TargetDiary,
			Columns: []string{"Title", "Comment"}, CreatedAt: expires.Add(-time.Hour), ExpiresAt: expires}
		if err := s.CreateImportSession(ctx, is); err != nil {
			t.Fatal(err)
		}
		rows := make([]importer.Row, n)
		for i := range rows {
			rows[i] = importer.Row{Index: i, Cells: []string{"Heat", strings.Repeat("x", 1<<10)}}
		}
		if err := s.AppendImportRows(ctx, is.ID, rows); err != nil {
			t.Fatal(err)
		}
		return is.ID
	}
	const n = 2000
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := s.DeleteImportSession(ctx, upload(n, now)); err != nil {
		t.Fatal(err)
	}
	upload(n, now)
	if got, err := s.DeleteExpiredImportSessions(ctx, now); err != nil || got != 1 {
		t.Fatalf("deleted %d expired sessions, %v; want 1", got, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t.Logf("deleted %d import rows, at most %d in one transaction", w.total, w.most)
	if w.total != 2*n || w.most > sqlstore.ImportDeleteBatch {
		t.Errorf("deleted %d rows, at most %d in one transaction; want %d, at most %d", w.total, w.most, 2*n, sqlstore.ImportDeleteBatch)
	}
}
