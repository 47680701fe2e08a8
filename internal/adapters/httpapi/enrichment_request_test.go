package httpapi_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/enrichment"
)

// TestNewMovieIsStampedAsRequested: the MovieEnrichmentRequested a new movie causes is stamped
// on the movie in its transaction, so the worker's staleness job (run at once, as at start-up)
// does not request the same movie again; nor after a poster sync, which requests it too.
func TestNewMovieIsStampedAsRequested(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	var out struct {
		Movie struct{ ID uuid.UUID } `json:"movie"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
		"external_metadata_id": "tmdb:500", "manual_title": "Reservoir Dogs", "manual_release_year": 1992,
		"rating": 4, "watched_at": "2024-03-01",
	}}).json(t, &out)
	if got := b.scalar(`SELECT enrichment_requested_at FROM movies WHERE id = ?`, out.Movie.ID.String()); got == "" {
		t.Error("new movie: enrichment_requested_at is NULL beside its MovieEnrichmentRequested")
	}
	ctx := context.Background()
	stale := func() int {
		t.Helper()
		n, err := b.store.RequestStaleEnrichment(ctx, time.Now(), enrichment.MovieFresh, enrichment.MissingRetry, 24*time.Hour, 100)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := stale(); n != 0 {
		t.Errorf("staleness job requested %d movies again, want 0", n)
	}
	b.exec(`UPDATE movies SET enrichment_requested_at = NULL`)
	b.must(202, req{method: "POST", path: "/api/v1/movies/" + out.Movie.ID.String() + "/sync-poster", token: a.token})
	if n := stale(); n != 0 {
		t.Errorf("after a poster sync the staleness job requested %d movies again, want 0", n)
	}
}

// TestPersonPageRequestsOnce: reading an unenriched person asks for their enrichment once; more
// reads write nothing; the staleness job asks again once the request is a day old without effect.
func TestPersonPageRequestsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	person := uuid.NewSHA1(uuid.NameSpaceURL, []byte("tmdb:1158"))
	b.exec(`INSERT INTO people (id, external_id, name) VALUES (?, 'tmdb:1158', 'Al Pacino')`, person.String())
	since := b.lastEvent()
	for _, path := range []string{"", "", "/credits", ""} {
		b.must(200, req{method: "GET", path: "/api/v1/people/" + person.String() + path})
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"PersonEnrichmentRequested"}) {
		t.Fatalf("four reads enqueued %v, want one PersonEnrichmentRequested", got)
	}
	ctx := context.Background()
	n, err := b.store.RequestStalePersonEnrichment(ctx, time.Now(), enrichment.MissingRetry, 24*time.Hour, 100)
	if err != nil || n != 0 {
		t.Fatalf("staleness job at once: %d, %v; want 0", n, err)
	}
	n, err = b.store.RequestStalePersonEnrichment(ctx, time.Now().Add(25*time.Hour), enrichment.MissingRetry, 24*time.Hour, 100)
	if err != nil || n != 1 {
		t.Fatalf("staleness job a day later: %d, %v; want 1", n, err)
	}
	b.exec(`UPDATE people SET enriched_at = '2024-01-01T00:00:00.000Z'`)
	n, err = b.store.RequestStalePersonEnrichment(ctx, time.Now().Add(72*time.Hour), enrichment.MissingRetry, 24*time.Hour, 100)
	if err != nil || n != 0 {
		t.Fatalf("staleness job after enrichment: %d, %v; want 0", n, err)
	}
}

// exec runs a statement on the test's own connection, failing the test on error.
func (b *bundle) exec(query string, args ...any) {
	b.t.Helper()
	if _, err := b.db.Exec(query, args...); err != nil {
		b.t.Fatalf("%s: %v", query, err)
	}
}
