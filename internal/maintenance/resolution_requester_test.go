package maintenance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// TestResolutionRequesterBackfills: the movies typed in by hand that no request covers (an old
// database's), in batches, none twice; a request that came to nothing is repeated after the gap;
// a movie with no match is asked again only after ResolutionRetry; resolved movies and marked
// duplicates never.
func TestResolutionRequesterBackfills(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stamp := func(d time.Duration) string { return b.now.Add(-d).Format("2006-01-02T15:04:05.000Z") }
	for i := range 12 {
		b.exec(t, `INSERT INTO movies (id, title, release_year) VALUES (?, ?, 2000)`, fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			fmt.Sprintf("old %d", i))
	}
	b.exec(t, `INSERT INTO movies (id, external_metadata_id, title) VALUES (?, 'tt0000001', 'resolved')`, domain.MovieIDFor("tt0000001").String())
	for i, row := range []struct {
		requested, attempted any
		duplicate            any
	}{
		{requested: stamp(time.Hour)},                                                                              // just requested: left alone
		{requested: stamp(ResolutionRequestGap + time.Minute)},                                                     // came to nothing: again
		{requested: stamp(ResolutionRetry), attempted: stamp(time.Hour)},                                           // no match lately: left alone
		{requested: stamp(ResolutionRetry + time.Hour), attempted: stamp(ResolutionRetry + time.Minute)},           // no match long ago: again
		{requested: stamp(ResolutionRequestGap + time.Minute), duplicate: domain.MovieIDFor("tt0000001").String()}, // marked: never
	} {
		b.exec(t, `INSERT INTO movies (id, title, release_year, resolution_requested_at, resolution_attempted_at, duplicate_of)
			VALUES (?, 'stamped', 2000, ?, ?, ?)`, fmt.Sprintf("10000000-0000-4000-8000-%012d", i), row.requested, row.attempted, row.duplicate)
	}
	requested := func() int {
		return b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieResolutionRequested'`)
	}
	r := NewResolutionRequester(b.store, 10, b.cfg)
	if err := r.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := requested(); n != 10 {
		t.Errorf("first run requested %d, want the batch of 10", n)
	}
	for range 2 {
		if err := r.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := requested(); n != 14 {
		t.Errorf("%d requested in all, want 14 (12 never requested, 1 that came to nothing, 1 retried)", n)
	}
	if n := b.count(t, `SELECT count(DISTINCT json_extract(payload, '$.data.movie_id')) FROM event_queue`); n != 14 {
		t.Errorf("%d distinct movies requested, want 14 (none twice)", n)
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE payload LIKE '%10000000-0000-4000-8000-000000000004%'
		OR payload LIKE '%10000000-0000-4000-8000-000000000000%'`); n != 0 {
		t.Errorf("a duplicate or a recent request was requested again (%d)", n)
	}
}
