package domain_test

import (
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// TestWatchEventDedupKey: the external id names the movie when there is one, else the folded
// title and the year, so "Heat" and " heat " of 1995 are one movie and Heat of 1986 another.
func TestWatchEventDedupKey(t *testing.T) {
	t.Parallel()
	y95, y86 := 1995, 1986
	ext := "tmdb:949"
	withID := domain.WatchEvent{Title: "Heat", Year: &y95, ExternalID: &ext}
	a := domain.WatchEvent{Title: "Heat", Year: &y95}
	b := domain.WatchEvent{Title: " heat ", Year: &y95}
	c := domain.WatchEvent{Title: "Heat", Year: &y86}
	if withID.DedupKey() != "tmdb:949" {
		t.Errorf("key with an external id = %q", withID.DedupKey())
	}
	if a.DedupKey() != b.DedupKey() || a.DedupKey() == c.DedupKey() {
		t.Errorf("keys %q %q %q: want the first two equal and the third apart", a.DedupKey(), b.DedupKey(), c.DedupKey())
	}
}

// TestWatchEventOpenTo: only its user may act on a pending event; a closed one is a conflict.
func TestWatchEventOpenTo(t *testing.T) {
	t.Parallel()
	owner := uuid.New()
	ev := domain.WatchEvent{ID: uuid.New(), UserID: owner, Status: domain.WatchPending}
	if err := ev.OpenTo(owner); err != nil {
		t.Errorf("owner on a pending event: %v", err)
	}
	if err := ev.OpenTo(uuid.New()); domain.KindOf(err) != domain.KindForbidden {
		t.Errorf("another user: %v, want KindForbidden", err)
	}
	ev.Status = domain.WatchDismissed
	if err := ev.OpenTo(owner); domain.KindOf(err) != domain.KindConflict {
		t.Errorf("owner on a dismissed event: %v, want KindConflict", err)
	}
}
