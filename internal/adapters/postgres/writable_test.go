package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/domain"
)

// TestCheckWritable: a writable database passes the probe, which leaves no row; a read-only one
// fails it, and not as a full disk.
func TestCheckWritable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := open(t)
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM storage_probe`); err != nil || n != 0 {
		t.Fatalf("storage_probe holds %d rows (%v)", n, err)
	}
	var name string
	if err := db.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	exec(t, db, `ALTER DATABASE "`+name+`" SET default_transaction_read_only = on`)
	// New sessions take the setting: a store opened now has only those.
	readOnly, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer readOnly.Close()
	if err := readOnly.CheckWritable(ctx); err == nil || errors.Is(err, domain.ErrStorageFull) {
		t.Fatalf("read-only database: %v, want a failure that is not a full disk", err)
	}
}
