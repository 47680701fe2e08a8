package integration_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/movie"
)

// fakeStore records SaveWatch and knows no movie; the methods a test does not expect panic.
type fakeStore struct {
	integration.Store
	saved   []domain.WatchEvent
	since   []time.Time
	confirm []*integration.Confirmed
}

func (f *fakeStore) MovieByExternalID(context.Context, string) (domain.Movie, error) {
	return domain.Movie{}, domain.NotFound("no movie")
}

func (f *fakeStore) SaveWatch(_ context.Context, ev domain.WatchEvent, since time.Time, c *integration.Confirmed) (bool, error) {
	f.saved, f.since, f.confirm = append(f.saved, ev), append(f.since, since), append(f.confirm, c)
	return true, nil
}

// TestIngestAsksForTheHourAndAutoConfirmsWhatResolves: the store is asked to dedup over the
// last hour; an auto-confirm token confirms a watch its movie resolves for (a review with
// watch_medium media_server of the tmdb id's movie) and queues one that cannot resolve.
func TestIngestAsksForTheHourAndAutoConfirmsWhatResolves(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 20, 14, 5, 500, time.UTC)
	store := &fakeStore{}
	svc := integration.NewService(store, movie.NewResolver(store, nil, nil), func() time.Time { return now })
	rating := 4
	tok := domain.WebhookToken{ID: uuid.New(), UserID: uuid.New(), Provider: domain.SourcePlex, AutoConfirmRating: &rating}
	year := 1995
	got, err := svc.Ingest(context.Background(), tok, integration.Report{Title: "Heat", Year: &year, ExternalID: "tmdb:949"})
	if err != nil || got != integration.AutoConfirmed {
		t.Fatalf("Ingest = %v, %v; want auto_confirmed", got, err)
	}
	got, err = svc.Ingest(context.Background(), tok, integration.Report{Title: "Home Movie"})
	if err != nil || got != integration.Queued {
		t.Fatalf("Ingest of an unresolvable movie = %v, %v; want queued", got, err)
	}
	if want := now.Add(-time.Hour); !store.since[0].Equal(want) {
		t.Errorf("dedup since = %v, want %v", store.since[0], want)
	}
	c := store.confirm[0]
	if c == nil || c.Review.Rating != 4 || c.Review.WatchMedium == nil || *c.Review.WatchMedium != domain.MediumMediaServer ||
		c.Movie.ID != domain.MovieIDFor("tmdb:949") || c.Movie.Title != "Heat" || !c.Review.WatchedAt.Equal(now.Truncate(time.Second)) {
		t.Errorf("auto-confirmation = %+v, want a media_server review rated 4 of tmdb:949 at the watch time", c)
	}
	if ev := store.saved[0]; ev.Status != domain.WatchConfirmed || ev.ReviewID == nil || *ev.ReviewID != c.Review.ID {
		t.Errorf("auto-confirmed event = %+v, want it confirmed with the review's id", ev)
	}
	if ev := store.saved[1]; ev.Status != domain.WatchPending || store.confirm[1] != nil {
		t.Errorf("unresolvable event = %+v (confirm %v), want it pending without a review", ev, store.confirm[1])
	}
}

// TestIngestDropsAYearNoFilmCanHave: a media server's year outside MinReleaseYear…MaxReleaseYear
// (a garbled 99999999999, a year 12) is queued as unknown rather than reaching a column it
// overflows (a 500 on PostgreSQL); a plausible one is kept.
func TestIngestDropsAYearNoFilmCanHave(t *testing.T) {
	t.Parallel()
	store := &fakeStore{}
	svc := integration.NewService(store, movie.NewResolver(store, nil, nil), time.Now)
	tok := domain.WebhookToken{ID: uuid.New(), UserID: uuid.New(), Provider: domain.SourceJellyfin}
	for _, y := range []int{99999999999, 12, -1, 1995} {
		if _, err := svc.Ingest(context.Background(), tok, integration.Report{Title: "Heat", Year: &y}); err != nil {
			t.Fatalf("year %d: %v", y, err)
		}
	}
	for i, ev := range store.saved[:3] {
		if ev.Year != nil {
			t.Errorf("watch %d kept the year %d", i, *ev.Year)
		}
	}
	if ev := store.saved[3]; ev.Year == nil || *ev.Year != 1995 {
		t.Errorf("a plausible year was dropped: %v", ev.Year)
	}
}
