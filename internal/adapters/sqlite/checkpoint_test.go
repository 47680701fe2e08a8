package sqlite

import (
	"context"
	"os"
	"strconv"
	"strings"
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
	ctx := context.Background()
	s := newStore(t)
	blob := strings.Repeat("y", 16<<10)
	deadline := time.Now().Add(10 * time.Second)
	written := int64(0)
	for i := 0; ; i++ {
		if err := s.writeAlone(ctx, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM job_leases`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, 0)`, strconv.Itoa(i), blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		written += int64(len(blob))
		wal := fileSize(t, s.Path()+"-wal")
		if written >= 64<<20 && wal*4 < written {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL is %d MiB after %d MiB of rows: it does not start over", wal>>20, written>>20)
		}
	}
}
