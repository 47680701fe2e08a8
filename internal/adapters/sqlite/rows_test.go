package sqlite

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
)

// fullMovie has every movies column set, so a row struct that misses one shows.
func fullMovie(ext string) domain.Movie {
	return domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: sqlrow.Ref(ext), Title: "Heat", ReleaseYear: 1995,
		Director: sqlrow.Ref("Michael Mann"), PosterPath: sqlrow.Ref("posters/heat.jpg"), Genres: []string{"Crime", "Thriller"},
		RuntimeMinutes: sqlrow.Ref(170), OriginalLanguage: sqlrow.Ref("en"), Overview: sqlrow.Ref("A heist."), CollectionName: sqlrow.Ref("None")}
}

func same[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// TestReadsMapEveryColumn: a review and its movie with every column set come back whole from
// each read that selects them, alone or joined (where the movie's columns are aliased under
// "movie."), and so do a person, their credit, a wrap-up and a remote actor.
func TestReadsMapEveryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	alice := newUser(t, s, "alice")
	m := fullMovie("tt0113277")
	at := time.Date(2024, 3, 1, 20, 30, 0, 123e6, time.UTC)
	r := domain.Review{ID: uuid.New(), UserID: alice, Rating: 4, Comment: sqlrow.Ref("tense"), WatchedAt: at,
		WatchMedium: sqlrow.Ref(domain.MediumCinema), CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(2 * time.Hour)}
	if _, err := s.LogReview(ctx, r, m, nil); err != nil {
		t.Fatal(err)
	}
	r.MovieID = m.ID
	page := domain.Page{Limit: 10}

	got, err := s.MovieByID(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "MovieByID", got, m)
	diary, err := s.Diary(ctx, review.DiaryFilter{UserID: &alice}, page)
	if err != nil || len(diary.Items) != 1 || diary.Total != 1 {
		t.Fatalf("diary: %+v (%v)", diary, err)
	}
	same(t, "diary entry", diary.Items[0], review.Entry{Movie: m, Review: r, UserDisplayName: "alice"})
	reviews, movies, total, err := s.OutboxReviews(ctx, alice, 0, 10)
	if err != nil || total != 1 || len(reviews) != 1 || len(movies) != 1 {
		t.Fatalf("outbox: %v %v %d (%v)", reviews, movies, total, err)
	}
	same(t, "outbox review", reviews[0], r)
	same(t, "outbox movie", movies[0], m)
	viewings, err := s.MovieReviews(ctx, m.ID, page)
	if err != nil || len(viewings.Items) != 1 {
		t.Fatalf("movie reviews: %+v (%v)", viewings, err)
	}
	same(t, "movie review", viewings.Items[0].Review, r)
	same(t, "movie review author", viewings.Items[0].UserDisplay, "alice")
	stats, err := s.MovieStats(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "movie stats", stats.Histogram, [5]int{0, 0, 0, 1, 0})
	same(t, "movie average", *stats.AvgRating, 4.0)
	us, err := s.UserStats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "user stats", []any{us.TotalMovies, *us.AvgRating, *us.FavoriteDirector, *us.MostActiveMonth},
		[]any{1, 4.0, "Michael Mann", "2024-03"})
	tr, err := s.UserTrends(ctx, alice, 10)
	if err != nil || len(tr.Monthly) != 1 || len(tr.TopGenres) != 2 || len(tr.Media) != 1 {
		t.Fatalf("trends: %+v (%v)", tr, err)
	}
	same(t, "trend month", tr.Monthly[0].YearMonth, "2024-03")
	same(t, "trend medium", tr.Media[0].Name, "cinema")

	later := fullMovie("tt0133093")
	later.Title = "The Matrix"
	added := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.AddToWatchlist(ctx, alice, later, added); err != nil {
		t.Fatal(err)
	}
	wl, err := s.Watchlist(ctx, alice, page)
	if err != nil || len(wl.Items) != 1 {
		t.Fatalf("watchlist: %+v (%v)", wl, err)
	}
	same(t, "watchlist movie", wl.Items[0].Movie, later)
	same(t, "watchlist added", wl.Items[0].AddedAt, added)

	person := uuid.New()
	enriched := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	err = s.SaveMovieEnrichment(ctx, enrichment.MovieEnrichment{MovieID: m.ID, Genres: m.Genres,
		People:  []enrichment.PersonRow{{ID: person, ExternalID: "tmdb:1", Name: "Michael Mann", KnownForDepartment: sqlrow.Ref("Directing")}},
		Credits: []enrichment.CreditRow{{PersonID: person, Role: "Director", Department: sqlrow.Ref("Directing"), Order: sqlrow.Ref(0)}},
		Profile: json.RawMessage(`{"keywords":[]}`), EnrichedAt: enriched})
	if err != nil {
		t.Fatal(err)
	}
	err = s.SavePersonEnrichment(ctx, person, enrichment.Person{Name: "Michael Mann", Biography: "Director.",
		Birthday: sqlrow.Ref("1943-02-05"), PlaceOfBirth: sqlrow.Ref("Chicago"), Homepage: sqlrow.Ref("https://example.test"),
		IMDbID: sqlrow.Ref("nm0000520"), KnownForDepartment: "Directing", ProfilePath: sqlrow.Ref("/mann.jpg")}, enriched)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Person(ctx, person)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "person", p.Biography != nil && *p.Biography == "Director." && *p.Birthday == "1943-02-05" &&
		p.Deathday == nil && *p.IMDbID == "nm0000520" && *p.ProfilePath == "/mann.jpg" && p.ExternalID == "tmdb:1" && p.Enriched, true)
	credits, err := s.PersonCredits(ctx, person)
	if err != nil || len(credits) != 1 {
		t.Fatalf("credits: %+v (%v)", credits, err)
	}
	same(t, "credit", credits[0].Role+"/"+*credits[0].Department, "Director/Directing")
	same(t, "credit movie", credits[0].Movie, m)
	st, err := s.MovieEnrichmentState(ctx, m.ID)
	if err != nil || st.EnrichedAt == nil || !st.EnrichedAt.Equal(enriched) || st.MissingAt != nil {
		t.Errorf("enrichment state: %+v (%v)", st, err)
	}
	hits, err := s.SearchMovies(ctx, search.Query{Text: "heat", Page: page})
	if err != nil || len(hits.Items) != 1 {
		t.Fatalf("search movies: %+v (%v)", hits, err)
	}
	same(t, "movie hit", hits.Items[0], search.MovieHit{ID: m.ID, Title: m.Title, ReleaseYear: m.ReleaseYear,
		Director: m.Director, PosterPath: m.PosterPath, Genres: m.Genres})
	people, err := s.SearchPeople(ctx, search.Query{Text: "mann", Page: page})
	if err != nil || len(people.Items) != 1 {
		t.Fatalf("search people: %+v (%v)", people, err)
	}
	same(t, "person hit", people.Items[0].KnownForTitles, []string{"Heat"})

	w := domain.WrapUp{ID: uuid.New(), UserID: &alice, Status: domain.WrapUpPending,
		StartDate: domain.NewDate(2024, 1, 1), EndDate: domain.NewDate(2024, 12, 31), CreatedAt: at}
	if _, err := s.RequestWrapUp(ctx, w); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.StartWrapUp(ctx, w.ID); err != nil || !ok {
		t.Fatalf("start wrap-up: %v %v", ok, err)
	}
	if _, err := s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{"total":1}`), enriched); err != nil {
		t.Fatal(err)
	}
	w.Status, w.CompletedAt, w.Report = domain.WrapUpReady, &enriched, json.RawMessage(`{"total":1}`)
	gotW, err := s.WrapUp(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "wrap-up", gotW, w)
	vs, err := s.WrapUpViewings(ctx, &alice, w.StartDate, w.EndDate)
	if err != nil || len(vs) != 1 {
		t.Fatalf("wrap-up viewings: %+v (%v)", vs, err)
	}
	same(t, "wrap-up viewing", *vs[0].Medium+" "+*vs[0].Director+" "+vs[0].Title, "cinema Michael Mann Heat")
	same(t, "wrap-up viewing genres", vs[0].Genres, m.Genres)

	a := domain.RemoteActor{URL: "https://r.example/users/bob", Inbox: "https://r.example/users/bob/inbox",
		Outbox: "https://r.example/users/bob/outbox", Handle: "@bob@r.example", DisplayName: "Bob",
		KeyID: "https://r.example/users/bob#main-key", PublicKeyPEM: "PEM", FetchedAt: enriched}
	if err := s.SaveRemoteActor(ctx, a); err != nil {
		t.Fatal(err)
	}
	gotA, err := s.RemoteActorByKeyID(ctx, a.KeyID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "remote actor", gotA, a)
}
