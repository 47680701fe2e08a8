package sqlite

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"moviesdiary/internal/outbox"

	"github.com/jmoiron/sqlx"
	"go.uber.org/goleak"
)

// newStore opens and migrates a fresh database file in t.TempDir().
func newStore(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s := openStore(t, filepath.Join(t.TempDir(), "test.db"), opts...)
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

func openStore(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// discard drops logs, for the migrating child process, which has no test to log to.
func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testLogger writes to the test's log.
func testLogger(t testing.TB) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// fakeClock is a settable clock for lease and backoff tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func (c *fakeClock) set(t time.Time)         { c.t = t }

// verifyNoLeak fails t if a goroutine started during it outlives it (its cleanups, which close
// its stores, run first). Only for tests that are not parallel: goleak sees the whole process,
// and parallel tests of this package wait while the sequential ones run.
func verifyNoLeak(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// TestCloseJoinsEveryGoroutine: the group-commit loop, the checkpointer, the pools' and the
// queue's watcher stop by the time Close returns.
func TestCloseJoinsEveryGoroutine(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := context.Background()
	s, err := OpenMigrated(ctx, filepath.Join(t.TempDir(), "leak.db"), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue(outbox.QueueConfig{Logger: testLogger(t)})
	if err := s.Enqueue(ctx, reindex); err != nil { // a commit kicks the checkpointer
		t.Fatal(err)
	}
	if err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error { return outbox.Insert(ctx, tx, s.now(), reindex) }); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Claim(ctx, 10); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	_ = q.Wait(waitCtx)
	cancel()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, ignore)
}

func TestOpenSetsPragmas(t *testing.T) {
	verifyNoLeak(t)
	s := newStore(t)
	ctx := context.Background()
	// The writer waits for the write lock in its BeginTx (busy.go), so SQLite's own busy
	// timeout is off there; readers keep it.
	for _, c := range []struct {
		db       *sqlx.DB
		min, max int
	}{{s.write, 0, 0}, {s.read, 1000, 1 << 30}} {
		var mode string
		var sync, fk, busy int
		mustScan(t, c.db.QueryRowContext(ctx, "PRAGMA journal_mode"), &mode)
		mustScan(t, c.db.QueryRowContext(ctx, "PRAGMA synchronous"), &sync)
		mustScan(t, c.db.QueryRowContext(ctx, "PRAGMA foreign_keys"), &fk)
		mustScan(t, c.db.QueryRowContext(ctx, "PRAGMA busy_timeout"), &busy)
		if mode != "wal" || sync != 1 || fk != 1 || busy < c.min || busy > c.max {
			t.Errorf("pragmas: journal_mode=%s synchronous=%d foreign_keys=%d busy_timeout=%d; want wal, 1 (NORMAL), 1, %d–%d",
				mode, sync, fk, busy, c.min, c.max)
		}
	}
}

// TestWriteTransactionsStartImmediate: two processes' transactions that read then write must not
// deadlock on a lock upgrade; BEGIN IMMEDIATE takes the write lock up front, so a second writer
// waits at BEGIN instead of failing mid-transaction.
func TestWriteTransactionsStartImmediate(t *testing.T) {
	verifyNoLeak(t)
	s := newStore(t)
	other := openStore(t, s.path) // a second process's handle on the same file
	ctx := context.Background()

	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Holding an IMMEDIATE transaction, even before any write, must block other writers.
	otherCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	conn, err := other.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(otherCtx, "PRAGMA busy_timeout = 50"); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(otherCtx, "BEGIN IMMEDIATE")
	if err == nil {
		conn.ExecContext(ctx, "ROLLBACK")
		t.Fatal("a second writer began while the first held a write transaction: BEGIN is not IMMEDIATE")
	}
}

func mustScan(t *testing.T, row *sql.Row, dest ...any) {
	t.Helper()
	if err := row.Scan(dest...); err != nil {
		t.Fatal(err)
	}
}
