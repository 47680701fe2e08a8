package postgres_test

import (
	"context"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/domain"
)

// TestDataVersionMovesOnEveryCommit: a commit on another connection (another host's server or
// worker) changes the version, every time.
func TestDataVersionMovesOnEveryCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := open(t)
	other, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for range 5 {
		before, err := s.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Enqueue(ctx, domain.SearchReindexRequested{}); err != nil {
			t.Fatal(err)
		}
		after, err := s.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after == before {
			t.Fatalf("version %d unchanged by a commit", after)
		}
	}
}
