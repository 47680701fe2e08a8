package postgres_test

import (
	"context"
	"strings"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
)

// TestOpenExisting: the operators' commands open a migrated database, and refuse an empty one
// or a bad URL with a message that says what to do.
func TestOpenExisting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := postgres.OpenExisting(ctx, migratedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := postgres.OpenExisting(ctx, pgtest.Empty(t)); err == nil || !strings.Contains(err.Error(), "not a migrated moviesdiary database") {
		t.Fatalf("empty database: %v", err)
	}
	if _, err := postgres.OpenExisting(ctx, "mysql://somewhere/db"); err == nil || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("not a PostgreSQL URL: %v", err)
	}
}
