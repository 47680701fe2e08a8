package sqlite

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// The writer never checkpoints; the checkpointer copies the WAL into the database file soon after
// commits, from its own connection.
func TestCheckpointerCopiesTheWALInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	var auto int
	if err := s.write.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, want 0 (commits must not checkpoint)", auto)
	}
	before := fileSize(t, s.Path())
	blob := strings.Repeat("x", 64<<10)
	for i := range 32 { // 2 MiB over 32 commits
		if err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, 'test', 0)`, blob+strconv.Itoa(i))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for fileSize(t, s.Path()) < before+(1<<20) {
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes (was %d): the WAL was not checkpointed", fileSize(t, s.Path()), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Under writes that never pause, the WAL still starts over instead of growing with every commit:
// its file (which keeps its largest size) ends far smaller than what went through it.
func TestCheckpointerKeepsTheWALBounded(t *testing.T) {
	t.Parallel()
	writeUntilTheWALStartsOver(t, newStore(t))
}

// The server and the worker are two processes, each with its own writer connection, on one file.
// When both write without pause, one's commit used to slip in between the other's last
// checkpoint and its next transaction, so the WAL never started over: it grew by gigabytes, and
// every read got slower as the WAL index grew with it.
func TestCheckpointerKeepsTheWALBoundedUnderTwoWriters(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	writeUntilTheWALStartsOver(t, a, openStore(t, a.Path()))
}

// Under a busy server every read connection runs one read after another, each of a few
// milliseconds, so a RESTART from the checkpointer's connection always found one of them still on
// the WAL (the mixed load at 128 clients grew it past 19,000 frames). The checkpoint on the
// writer's own connection, whose next transaction starts the WAL over when it can, is the fallback
// that still works there.
func TestCheckpointerKeepsTheWALBoundedUnderReaders(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	defer readers.Wait()
	defer cancel()
	for range readConns() {
		readers.Go(func() {
			for ctx.Err() == nil {
				var n int
				_ = s.read.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
					SELECT (SELECT count(*) FROM job_leases) + count(*) FROM c`).Scan(&n)
			}
		})
	}
	writeUntilTheWALStartsOver(t, s)
}

// writeUntilTheWALStartsOver commits 16 KiB rows from every store at once, without pause, until
// 64 MiB went through with the WAL file under a quarter of that, or fails after a minute. A
// bounded WAL plateaus (at up to about 80 MiB with readers on a loaded machine, so the rows must
// reach four times that); an unbounded one grows with every row and never passes.
func writeUntilTheWALStartsOver(t *testing.T, stores ...*Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	blob := strings.Repeat("y", 16<<10)
	var written atomic.Int64
	var wal atomic.Int64
	errs := make(chan error, len(stores))
	var wg sync.WaitGroup
	defer wg.Wait()
	for n, s := range stores {
		wg.Go(func() {
			for i := 0; ; i++ {
				name := fmt.Sprintf("w%d-%d", n, i%4)
				if err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
					if _, err := tx.ExecContext(ctx, `DELETE FROM job_leases WHERE name = ?`, name); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, 0)`, name, blob)
					return err
				}); err != nil {
					errs <- err
					return
				}
				w := written.Add(int64(len(blob)))
				fi, err := os.Stat(s.Path() + "-wal")
				if err != nil {
					errs <- err
					return
				}
				wal.Store(fi.Size())
				if w >= 64<<20 && fi.Size()*4 < w {
					errs <- nil
					return
				}
			}
		})
	}
	err := <-errs
	cancel()
	if err != nil {
		t.Fatalf("WAL is %d MiB after %d MiB of rows: it does not start over (%v)", wal.Load()>>20, written.Load()>>20, err)
	}
}
