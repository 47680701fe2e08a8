package maintenance

import (
	"context"
	"fmt"
	"testing"
	"time"

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

// TestEnrichmentRequesterRetriesPeople: a person whose page asked for enrichment a day ago and
// who is still not enriched is asked for again, once per gap; people nobody asked for, and
// people asked for recently, are not.
func TestEnrichmentRequesterRetriesPeople(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := b.now.Add(-EnrichmentRequestGap - time.Minute).Format("2006-01-02T15:04:05.000Z")
	recent := b.now.Add(-time.Hour).Format("2006-01-02T15:04:05.000Z")
	for i, requested := range []any{old, recent, nil} {
		ext := fmt.Sprintf("tmdb:%d", i)
		b.exec(t, `INSERT INTO people (id, external_id, name, enrichment_requested_at) VALUES (?, ?, 'x', ?)`,
			domain.MovieIDFor(ext).String(), ext, requested)
	}
	r := NewEnrichmentRequester(b.store, 10, b.cfg)
	for range 2 {
		if err := r.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'PersonEnrichmentRequested'
		AND json_extract(payload, '$.data.person_id') = ?`, domain.MovieIDFor("tmdb:0").String()); n != 1 {
		t.Errorf("the unanswered person was requested %d times by two runs, want once", n)
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'PersonEnrichmentRequested'`); n != 1 {
		t.Errorf("%d person requests in all, want 1", n)
	}
}
