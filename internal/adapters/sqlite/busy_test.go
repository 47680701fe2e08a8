package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// holdWriteLock begins a write transaction on another process's handle of s's file and returns
// its rollback.
func holdWriteLock(t *testing.T, s *Store) func() {
	t.Helper()
	db, err := openRaw(s.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS busy_probe (x)`); err != nil {
		t.Fatal(err)
	}
	return func() { _ = tx.Rollback() }
}

// TestWriterWaitsForAnotherProcessesLock: with SQLite's busy timeout off on the writer, its
// BeginTx must still wait while another process writes, and begin once the lock is released.
func TestWriterWaitsForAnotherProcessesLock(t *testing.T) {
	s := newStore(t)
	release := holdWriteLock(t, s)
	done := make(chan error, 1)
	go func() {
		done <- s.writeAlone(context.Background(), func(tx *sqlx.Tx) error {
			_, err := tx.Exec(`CREATE TABLE waited (x)`)
			return err
		})
	}()
	// A writer that gave up at once (busy_timeout = 0 without the retry) returns "database is
	// locked" within microseconds.
	select {
	case err := <-done:
		t.Fatalf("writer returned while another process held the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("writer after the release: %v", err)
	}
}

// TestWriterWaitEndsWithItsContext: a writer waiting for the lock gives up when its context
// ends, with the context's error.
func TestWriterWaitEndsWithItsContext(t *testing.T) {
	s := newStore(t)
	release := holdWriteLock(t, s)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := s.writeAlone(ctx, func(*sqlx.Tx) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("writeAlone = %v, want the context's deadline", err)
	}
}
