package pgtest

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// TestServerDownUp: a durable Server stopped cleanly or as a crash starts again on the same
// socket with its committed rows.
func TestServerDownUp(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := StartDurable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	url, err := s.CreateDatabase(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (n int); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	for i, mode := range []string{"immediate", "fast"} {
		if err := s.Down(ctx, mode); err != nil {
			t.Fatalf("down (%s): %v", mode, err)
		}
		if err := db.PingContext(ctx); err == nil {
			t.Fatalf("PostgreSQL answers after Down(%s)", mode)
		}
		if err := s.Up(ctx); err != nil {
			t.Fatalf("up after %s: %v", mode, err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != i+1 {
			t.Fatalf("after a %s stop: %d rows (%v), want %d", mode, n, err, i+1)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Down(ctx, "smart"); err == nil {
		t.Error("Down accepted the mode smart")
	}
}
