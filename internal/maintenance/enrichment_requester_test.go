package maintenance

import (
	"context"
	"fmt"
	"testing"

	"moviesdiary/internal/domain"
)

// TestEnrichmentRequesterIsBounded: a run requests at most the batch, and the next run requests
// the next movies, none twice.
func TestEnrichmentRequesterIsBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 25 {
		ext := fmt.Sprintf("tt%07d", i)
		b.exec(t, `INSERT INTO movies (id, external_metadata_id, title) VALUES (?, ?, 'x')`, domain.MovieIDFor(ext).String(), ext)
	}
	requested := func() int {
		return b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieEnrichmentRequested'`)
	}
	r := NewEnrichmentRequester(b.store, 10, b.cfg)
	if err := r.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := requested(); n != 10 {
		t.Errorf("first run requested %d, want the batch of 10", n)
	}
	if err := r.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := requested(); n != 20 {
		t.Errorf("second run: %d requested in all, want 20", n)
	}
	if n := b.count(t, `SELECT count(DISTINCT json_extract(payload, '$.data.movie_id')) FROM event_queue`); n != 20 {
		t.Errorf("%d distinct movies requested, want 20 (no movie twice)", n)
	}
}
