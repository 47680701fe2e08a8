package sqlite

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The writer never checkpoints; the checkpointer copies the WAL into the database file soon after
// commits, from its own connection.
func TestCheckpointerCopiesTheWALInTheBackground(t *testing.T) {
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
		if err := s.inTx(ctx, func(tx *sql.Tx) error {
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
