package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
	"moviesdiary/internal/usecase/review"
)

// Catalog is what RunCatalog needs of a store: the worker's enrichment and poster writes, the
// catalog reads they feed, and the diary writes that create movies.
type Catalog interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	DeleteReview(ctx context.Context, id uuid.UUID, check func(domain.Review) error) error

	MovieEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error)
	PersonEnrichmentState(ctx context.Context, id uuid.UUID) (enrichment.State, error)
	SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error
	MarkMovieMissing(ctx context.Context, id uuid.UUID, at time.Time) error
	SavePersonEnrichment(ctx context.Context, id uuid.UUID, p enrichment.Person, at time.Time) error
	MarkPersonMissing(ctx context.Context, id uuid.UUID, at time.Time) error
	RequestStaleEnrichment(ctx context.Context, now time.Time, freshFor, missingRetry, requestedWithin time.Duration, limit int) (int, error)
	RequestMovieEnrichment(ctx context.Context, id uuid.UUID, externalID string) error
	RequestPersonEnrichment(ctx context.Context, id uuid.UUID, externalID string) (bool, error)
	RequestStalePersonEnrichment(ctx context.Context, now time.Time, missingRetry, requestedWithin time.Duration, limit int) (int, error)

	Movies(ctx context.Context, f movie.Filter, p domain.Page) (domain.Paged[domain.Movie], error)
	MovieStats(ctx context.Context, id uuid.UUID) (movie.Stats, error)
	MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error)
	MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error)
	Person(ctx context.Context, id uuid.UUID) (movie.Person, error)
	PersonCredits(ctx context.Context, id uuid.UUID) ([]movie.Credit, error)

	SetPoster(ctx context.Context, movieID uuid.UUID, key string) (poster.Outcome, error)
	MovieImages(ctx context.Context, id uuid.UUID) (domain.MovieImages, error)
	SetBackdrop(ctx context.Context, movieID uuid.UUID, key string) (poster.Outcome, error)
	SetPersonPhoto(ctx context.Context, personID uuid.UUID, key string) (poster.Outcome, error)
	SwapImageKey(ctx context.Context, old, new string) (int64, error)
	ImageKeyInUse(ctx context.Context, key string) (bool, error)
}

// person is the enrichment row of TMDb person n.
func person(n int64, name string) enrichment.PersonRow {
	dept := "Acting"
	return enrichment.PersonRow{ID: enrichment.PersonID(n), ExternalID: fmt.Sprintf("tmdb:%d", n), Name: name, KnownForDepartment: &dept}
}

// movieEnrichment is an enrichment of movieID crediting people as cast in their order, the
// first one also as Director, with keywords in the profile.
func movieEnrichment(movieID uuid.UUID, at time.Time, overview string, keywords []string, people ...enrichment.PersonRow) enrichment.MovieEnrichment {
	e := enrichment.MovieEnrichment{MovieID: movieID, Genres: []string{"Science Fiction", "Drama"}, Overview: &overview,
		Runtime: ref(117), OriginalLanguage: ref("en"), People: people, EnrichedAt: at}
	for i, p := range people {
		e.Credits = append(e.Credits, enrichment.CreditRow{PersonID: p.ID, Cast: true, Role: "Role " + p.Name, Order: ref(i)})
	}
	if len(people) > 0 {
		e.Director = &people[0].Name
		e.Credits = append(e.Credits, enrichment.CreditRow{PersonID: people[0].ID, Role: "Director", Department: ref("Directing")})
	}
	kw := make([]map[string]any, 0, len(keywords))
	for i, k := range keywords {
		kw = append(kw, map[string]any{"id": i, "name": k})
	}
	e.Profile, _ = json.Marshal(map[string]any{"keywords": kw, "budget_usd": 11000000})
	return e
}

func ref[T any](v T) *T { return &v }

// storeMovie logs a review of tmdbMovie(n) by u and returns the movie.
func storeMovie(t *testing.T, s Catalog, u uuid.UUID, n, rating int) domain.Movie {
	t.Helper()
	got, err := s.LogReview(context.Background(), newReview(u, rating, n), tmdbMovie(n), nil)
	must(t, err)
	return got.Movie
}

// RunCatalog runs the enrichment, catalog and poster cases against stores open makes.
func RunCatalog(t *testing.T, open func(t *testing.T, faults *Faults) Catalog) {
	ctx := context.Background()

	t.Run("EnrichmentStateNotFound", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		_, err := s.MovieEnrichmentState(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: movie")
		_, err = s.PersonEnrichmentState(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: person")
		_, err = s.Person(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "Entity not found: person")
		_, err = s.MovieProfile(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		// Saving the enrichment of a movie that is gone writes nothing and is not an error.
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(uuid.New(), t0, "gone", nil, person(1, "Nobody"))))
		_, err = s.Person(ctx, enrichment.PersonID(1))
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("SaveMovieEnrichmentTwice", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 4)
		st, err := s.MovieEnrichmentState(ctx, m.ID)
		must(t, err)
		if st.EnrichedAt != nil || st.MissingAt != nil {
			t.Fatalf("state of a new movie %+v", st)
		}
		must(t, s.MarkMovieMissing(ctx, m.ID, t0))
		st, err = s.MovieEnrichmentState(ctx, m.ID)
		must(t, err)
		if st.MissingAt == nil || !st.MissingAt.Equal(t0) {
			t.Fatalf("missing at %v, want %v", st.MissingAt, t0)
		}
		before := events(t, s)
		e := movieEnrichment(m.ID, t0.Add(time.Hour), "A crew in space.", []string{"space"}, person(10, "Ridley Scott"), person(11, "Sigourney Weaver"))
		// Run twice: the same rows, once each.
		must(t, s.SaveMovieEnrichment(ctx, e))
		must(t, s.SaveMovieEnrichment(ctx, e))
		if n := events(t, s); n != before+2 {
			t.Fatalf("enrichment wrote %d events, want a MovieImagesRequested each", n-before)
		}
		st, err = s.MovieEnrichmentState(ctx, m.ID)
		must(t, err)
		if st.EnrichedAt == nil || !st.EnrichedAt.Equal(t0.Add(time.Hour)) || st.MissingAt != nil {
			t.Fatalf("state after enrichment %+v", st)
		}
		got, err := s.MovieByID(ctx, m.ID)
		must(t, err)
		if got.Director == nil || *got.Director != "Ridley Scott" || got.RuntimeMinutes == nil || *got.RuntimeMinutes != 117 ||
			*got.Overview != "A crew in space." || !slices.Equal(got.Genres, []string{"Science Fiction", "Drama"}) {
			t.Fatalf("movie after enrichment %+v", got)
		}
		profile, err := s.MovieProfile(ctx, m.ID)
		must(t, err)
		var doc struct {
			Budget int `json:"budget_usd"`
		}
		must(t, json.Unmarshal(profile, &doc))
		if doc.Budget != 11000000 {
			t.Fatalf("profile %s", profile)
		}
		credits, err := s.PersonCredits(ctx, enrichment.PersonID(10))
		must(t, err)
		if len(credits) != 2 || credits[0].Movie.ID != m.ID {
			t.Fatalf("credits of the director %+v, want 2 (cast and crew), once each", credits)
		}
		p, err := s.Person(ctx, enrichment.PersonID(11))
		must(t, err)
		if p.Name != "Sigourney Weaver" || p.ExternalID != "tmdb:11" || p.Enriched || p.EnrichmentRequested {
			t.Fatalf("person %+v", p)
		}
		// A second enrichment replaces the credits whole and keeps what it does not know.
		e2 := movieEnrichment(m.ID, t0.Add(2*time.Hour), "", nil, person(11, "Sigourney Weaver"))
		e2.Overview, e2.Runtime = nil, nil
		must(t, s.SaveMovieEnrichment(ctx, e2))
		if credits, err = s.PersonCredits(ctx, enrichment.PersonID(10)); err != nil || len(credits) != 0 {
			t.Fatalf("credits of a person no longer credited %+v, %v", credits, err)
		}
		if got, err = s.MovieByID(ctx, m.ID); err != nil || *got.Overview != "A crew in space." || *got.RuntimeMinutes != 117 ||
			*got.Director != "Ridley Scott" {
			t.Fatalf("movie after a partial enrichment %+v, %v", got, err)
		}
	})

	t.Run("PersonEnrichment", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 4)
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(20, "Ann Actor"))))
		id := enrichment.PersonID(20)
		before := events(t, s)
		first, err := s.RequestPersonEnrichment(ctx, id, "tmdb:20")
		must(t, err)
		again, err := s.RequestPersonEnrichment(ctx, id, "tmdb:20")
		must(t, err)
		if !first || again || events(t, s) != before+1 {
			t.Fatalf("requests %v then %v, %d events, want one request", first, again, events(t, s)-before)
		}
		p, err := s.Person(ctx, id)
		must(t, err)
		if !p.EnrichmentRequested || p.Enriched {
			t.Fatalf("person after the request %+v", p)
		}
		must(t, s.MarkPersonMissing(ctx, id, t0))
		st, err := s.PersonEnrichmentState(ctx, id)
		must(t, err)
		if st.MissingAt == nil || st.EnrichedAt != nil {
			t.Fatalf("state %+v", st)
		}
		bday := "1970-01-02"
		for range 2 {
			must(t, s.SavePersonEnrichment(ctx, id, enrichment.Person{TMDbID: 20, Name: "Ann Actor", Biography: "Born.",
				Birthday: &bday, KnownForDepartment: ""}, t0.Add(time.Hour)))
		}
		p, err = s.Person(ctx, id)
		must(t, err)
		if !p.Enriched || *p.Biography != "Born." || *p.Birthday != bday || p.KnownForDepartment == nil || *p.KnownForDepartment != "Acting" {
			t.Fatalf("person after enrichment %+v", p)
		}
		st, err = s.PersonEnrichmentState(ctx, id)
		must(t, err)
		if st.MissingAt != nil || st.EnrichedAt == nil || !st.EnrichedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("state after enrichment %+v", st)
		}
		if ok, err := s.RequestPersonEnrichment(ctx, id, "tmdb:20"); err != nil || ok {
			t.Fatalf("an enriched person requested again: %v, %v", ok, err)
		}
	})

	t.Run("StaleRequests", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		var movies []domain.Movie
		for n := 1; n <= 3; n++ {
			movies = append(movies, storeMovie(t, s, u.ID, n, 3))
		}
		// Movie 1 enriched now (fresh), movie 2 TMDb did not know a moment ago, movie 3 never.
		now := time.Now().UTC().Truncate(time.Millisecond)
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(movies[0].ID, now, "o", nil)))
		must(t, s.MarkMovieMissing(ctx, movies[1].ID, now))
		later := now.Add(48 * time.Hour)
		before := events(t, s)
		n, err := s.RequestStaleEnrichment(ctx, later, 30*24*time.Hour, 30*24*time.Hour, 24*time.Hour, 10)
		must(t, err)
		if n != 1 || events(t, s) != before+1 {
			t.Fatalf("requested %d (%d events), want movie 3 only", n, events(t, s)-before)
		}
		// Requested within the day: not again.
		if n, err = s.RequestStaleEnrichment(ctx, later.Add(time.Hour), 30*24*time.Hour, 30*24*time.Hour, 24*time.Hour, 10); err != nil || n != 0 {
			t.Fatalf("requested again %d, %v", n, err)
		}
		// A year on, all three, at most limit at a time.
		year := later.AddDate(1, 0, 0)
		if n, err = s.RequestStaleEnrichment(ctx, year, 30*24*time.Hour, 30*24*time.Hour, 24*time.Hour, 2); err != nil || n != 2 {
			t.Fatalf("requested %d, %v; want the limit, 2", n, err)
		}
		if n, err = s.RequestStaleEnrichment(ctx, year, 30*24*time.Hour, 30*24*time.Hour, 24*time.Hour, 2); err != nil || n != 1 {
			t.Fatalf("requested %d, %v; want the last one", n, err)
		}

		// People: only those asked for and never enriched.
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(movies[2].ID, now, "o", nil, person(30, "Asked"), person(31, "Never asked"))))
		ok, err := s.RequestPersonEnrichment(ctx, enrichment.PersonID(30), "tmdb:30")
		must(t, err)
		if !ok {
			t.Fatal("first request refused")
		}
		far := time.Now().Add(72 * time.Hour)
		if n, err = s.RequestStalePersonEnrichment(ctx, far, 30*24*time.Hour, 24*time.Hour, 10); err != nil || n != 1 {
			t.Fatalf("stale people requested %d, %v; want 1", n, err)
		}
		if n, err = s.RequestStalePersonEnrichment(ctx, far, 30*24*time.Hour, 24*time.Hour, 10); err != nil || n != 0 {
			t.Fatalf("stale people requested again %d, %v", n, err)
		}
	})

	t.Run("RequestsAtomic", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 3)
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(40, "P"))))
		before := events(t, s)
		faults.Set(true)
		if _, err := s.RequestPersonEnrichment(ctx, enrichment.PersonID(40), "tmdb:40"); err == nil {
			t.Fatal("person request committed without its event")
		}
		if err := s.RequestMovieEnrichment(ctx, m.ID, "tmdb:1"); err == nil {
			t.Fatal("movie request committed without its event")
		}
		if n, err := s.RequestStaleEnrichment(ctx, time.Now().AddDate(1, 0, 0), time.Hour, time.Hour, time.Hour, 10); err == nil || n != 0 {
			t.Fatalf("stale request committed without its events (%d)", n)
		}
		faults.Set(false)
		if n := events(t, s); n != before {
			t.Fatalf("%d events after failed requests", n-before)
		}
		p, err := s.Person(ctx, enrichment.PersonID(40))
		must(t, err)
		if p.EnrichmentRequested {
			t.Fatal("the person's stamp committed without its event")
		}
		// The stamps rolled back: the requests happen now.
		if ok, err := s.RequestPersonEnrichment(ctx, enrichment.PersonID(40), "tmdb:40"); err != nil || !ok {
			t.Fatalf("request after the failure: %v, %v", ok, err)
		}
		if n, err := s.RequestStaleEnrichment(ctx, time.Now().AddDate(1, 0, 0), time.Hour, time.Hour, time.Hour, 10); err != nil || n != 1 {
			t.Fatalf("stale request after the failure: %d, %v", n, err)
		}
	})

	t.Run("ConcurrentPersonRequests", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 3)
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(50, "P"))))
		before := events(t, s)
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]bool, 8)
		errs := make([]error, 8)
		for i := range results {
			wg.Go(func() {
				<-start
				results[i], errs[i] = s.RequestPersonEnrichment(ctx, enrichment.PersonID(50), "tmdb:50")
			})
		}
		close(start)
		wg.Wait()
		requested := 0
		for i, ok := range results {
			must(t, errs[i])
			if ok {
				requested++
			}
		}
		if requested != 1 || events(t, s) != before+1 {
			t.Fatalf("%d of 8 concurrent first reads requested (%d events), want 1", requested, events(t, s)-before)
		}
	})

	t.Run("ConcurrentEnrichments", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		// Four movies sharing a cast listed in different orders, each enriched twice at once:
		// no write may fail (PostgreSQL would abort one of two transactions that lock shared
		// people in opposite orders), and each movie ends with its credits once.
		cast := make([]enrichment.PersonRow, 10)
		for i := range cast {
			cast[i] = person(int64(200+i), fmt.Sprintf("Shared %d", i))
		}
		const movies = 4
		var es []enrichment.MovieEnrichment
		for i := range movies {
			m := storeMovie(t, s, u.ID, i+1, 3)
			people := slices.Clone(cast)
			if i%2 == 1 {
				slices.Reverse(people)
			}
			es = append(es, movieEnrichment(m.ID, t0, "o", nil, people...))
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2*movies)
		for i := range errs {
			wg.Go(func() {
				<-start
				errs[i] = s.SaveMovieEnrichment(ctx, es[i%movies])
			})
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		for i, p := range cast {
			credits, err := s.PersonCredits(ctx, p.ID)
			must(t, err)
			want := movies // one cast credit per movie, and the first listed also directs
			if i == 0 || i == len(cast)-1 {
				want += movies / 2
			}
			if len(credits) != want {
				t.Fatalf("%s has %d credits, want %d", p.Name, len(credits), want)
			}
		}
	})

	t.Run("ConcurrentStaleRequests", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		const movies = 10
		for i := range movies {
			storeMovie(t, s, u.ID, i+1, 3)
		}
		before := events(t, s)
		now := time.Now().AddDate(1, 0, 0)
		var wg sync.WaitGroup
		start := make(chan struct{})
		counts := make([]int, 4)
		errs := make([]error, 4)
		for i := range counts {
			wg.Go(func() {
				<-start
				counts[i], errs[i] = s.RequestStaleEnrichment(ctx, now, time.Hour, time.Hour, time.Hour, 4)
			})
		}
		close(start)
		wg.Wait()
		total := 0
		for i, n := range counts {
			must(t, errs[i])
			total += n
		}
		// Four jobs of at most four: every stale movie is requested once, none twice.
		if total != movies || events(t, s) != before+movies {
			t.Fatalf("concurrent stale requests asked for %d movies (%v) with %d events, want each of %d once",
				total, counts, events(t, s)-before, movies)
		}
	})

	t.Run("CatalogReads", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		for _, title := range []string{"beta", "Alpha", "gamma_ray", "Gamma"} {
			ext := "tmdb:" + title
			_, err := s.LogReview(ctx, newReview(u.ID, 4, 1), domain.Movie{ExternalID: &ext, Title: title, ReleaseYear: 2000}, nil)
			must(t, err)
		}
		page, err := s.Movies(ctx, movie.Filter{}, domain.Page{Limit: 3})
		must(t, err)
		if page.Total != 4 || len(page.Items) != 3 || page.Items[0].Title != "Alpha" || page.Items[1].Title != "beta" ||
			page.Items[2].Title != "Gamma" {
			t.Fatalf("movies %d %v, want by title without case", page.Total, titles(page.Items))
		}
		page, err = s.Movies(ctx, movie.Filter{Search: "A_R"}, domain.Page{Limit: 10})
		must(t, err)
		if page.Total != 1 || page.Items[0].Title != "gamma_ray" {
			t.Fatalf("a search with _ matched %v, want the literal underscore only", titles(page.Items))
		}
		gamma := page.Items[0]
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(gamma.ID, t0, "o", nil)))
		page, err = s.Movies(ctx, movie.Filter{Genre: "science fiction", Language: "en"}, domain.Page{Limit: 10})
		must(t, err)
		if page.Total != 1 || page.Items[0].ID != gamma.ID {
			t.Fatalf("genre and language filter %v", titles(page.Items))
		}

		bob := createUser(t, s, "bob")
		_, err = s.LogReview(ctx, newReview(bob.ID, 2, 2), gamma, nil)
		must(t, err)
		st, err := s.MovieStats(ctx, gamma.ID)
		must(t, err)
		if st.TotalCount != 2 || st.AvgRating == nil || *st.AvgRating != 3 || st.Histogram != [5]int{0, 1, 0, 1, 0} {
			t.Fatalf("stats %+v", st)
		}
		if st, err = s.MovieStats(ctx, uuid.New()); err != nil || st.TotalCount != 0 || st.AvgRating != nil {
			t.Fatalf("stats of an unknown movie %+v, %v", st, err)
		}
		views, err := s.MovieReviews(ctx, gamma.ID, domain.Page{Limit: 1})
		must(t, err)
		if views.Total != 2 || len(views.Items) != 1 || views.Items[0].UserDisplay != "bob" {
			t.Fatalf("movie reviews %+v, want bob's newest viewing first", views)
		}
		if views, err = s.MovieReviews(ctx, uuid.New(), page100); err != nil || views.Total != 0 || len(views.Items) != 0 {
			t.Fatalf("reviews of an unknown movie %+v, %v", views, err)
		}
	})

	t.Run("Posters", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 3)
		before := events(t, s)
		faults.Set(true)
		if _, err := s.SetPoster(ctx, m.ID, "posters/a.jpg"); err == nil {
			t.Fatal("poster set without its events")
		}
		faults.Set(false)
		if got, _ := s.MovieByID(ctx, m.ID); got.PosterPath != nil || events(t, s) != before {
			t.Fatalf("a failed SetPoster left poster %v and %d events", got.PosterPath, events(t, s)-before)
		}
		for i, want := range []poster.Outcome{poster.Set, poster.AlreadySet} {
			out, err := s.SetPoster(ctx, m.ID, "posters/a.jpg")
			must(t, err)
			if out != want {
				t.Fatalf("SetPoster #%d: %v, want %v", i+1, out, want)
			}
		}
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events, want PosterSynced and ImageStored once", n-before)
		}
		if out, err := s.SetPoster(ctx, uuid.New(), "posters/b.jpg"); err != nil || out != poster.MovieGone {
			t.Fatalf("poster of an unknown movie: %v, %v", out, err)
		}
		// The converted image replaces the key on the movie and on a user's avatar.
		must(t, s.UpdateProfile(ctx, u.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.AvatarKey = "posters/a.jpg"
			return nil, nil
		}))
		before = events(t, s)
		converted := domain.ConvertedKey("posters/a.jpg")
		n, err := s.SwapImageKey(ctx, "posters/a.jpg", converted)
		must(t, err)
		if n != 2 || events(t, s) != before+1 {
			t.Fatalf("swap changed %d rows with %d events, want 2 with one UserUpdated", n, events(t, s)-before)
		}
		if out, err := s.SetPoster(ctx, m.ID, "posters/a.jpg"); err != nil || out != poster.AlreadyConverted {
			t.Fatalf("SetPoster of the converted key's original: %v, %v", out, err)
		}
		for key, want := range map[string]bool{converted: true, "posters/a.jpg": false} {
			used, err := s.ImageKeyInUse(ctx, key)
			must(t, err)
			if used != want {
				t.Errorf("key %s in use %v, want %v", key, used, want)
			}
		}
		if n, err := s.SwapImageKey(ctx, "none", "other"); err != nil || n != 0 {
			t.Fatalf("swap of an unused key: %d, %v", n, err)
		}
	})

	t.Run("ConcurrentSetPoster", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		// Several movies, each synced by several racers at once, so the race is likely to
		// overlap somewhere even on a loaded machine.
		const movies, racers = 8, 6
		ms := make([]domain.Movie, movies)
		for i := range ms {
			ms[i] = storeMovie(t, s, u.ID, i+1, 3)
		}
		before := events(t, s)
		var wg sync.WaitGroup
		start := make(chan struct{})
		outs := make([]poster.Outcome, movies*racers)
		errs := make([]error, movies*racers)
		for i := range outs {
			wg.Go(func() {
				<-start
				outs[i], errs[i] = s.SetPoster(ctx, ms[i%movies].ID, fmt.Sprintf("posters/race-%d.jpg", i%movies))
			})
		}
		close(start)
		wg.Wait()
		set := 0
		for i, o := range outs {
			must(t, errs[i])
			if o == poster.Set {
				set++
			}
		}
		if set != movies || events(t, s) != before+2*movies {
			t.Fatalf("%d racing syncs set a poster (%d events), want one per movie, %d", set, events(t, s)-before, movies)
		}
	})

	// MovieImages: enrichment keeps the backdrop's TMDb path and the people's, the reads list
	// the cast once each in billing order, and the keys are set once each with ImageStored,
	// swapped by a conversion, in use while referred to, and kept by a later enrichment.
	t.Run("MovieImages", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		m := storeMovie(t, s, u.ID, 1, 4)
		_, err := s.MovieImages(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		withPhoto, without := person(20, "Rutger Hauer"), person(21, "Sean Young")
		withPhoto.ProfilePath = ref("/8ahRgCUpp6TAIj8rVo4MjrjpqPB.jpg")
		e := movieEnrichment(m.ID, t0, "Replicants.", nil, withPhoto, without)
		e.BackdropPath = ref("/eIi3klFf7mp3oL5EEF4mLIDs26r.jpg")
		// A second part of the same actor: listed once, at their first billing.
		e.Credits = append(e.Credits, enrichment.CreditRow{PersonID: withPhoto.ID, Cast: true, Role: "Double", Order: ref(7)})
		must(t, s.SaveMovieEnrichment(ctx, e))
		imgs, err := s.MovieImages(ctx, m.ID)
		must(t, err)
		if imgs.BackdropPath != *e.BackdropPath || imgs.BackdropKey != nil || len(imgs.Cast) != 2 ||
			imgs.Cast[0].PersonID != withPhoto.ID || imgs.Cast[0].ProfilePath != *withPhoto.ProfilePath || imgs.Cast[0].PhotoKey != nil ||
			imgs.Cast[1].PersonID != without.ID || imgs.Cast[1].ProfilePath != "" {
			t.Fatalf("images of an enriched movie %+v", imgs)
		}

		backdrop, photo := domain.BackdropKey(m.ID), domain.PersonPhotoKey(withPhoto.ID)
		// A failing enqueue sets nothing.
		faults.Set(true)
		_, err = s.SetBackdrop(ctx, m.ID, backdrop)
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("set backdrop with a failing enqueue: %v", err)
		}
		before := events(t, s)
		for _, want := range []poster.Outcome{poster.Set, poster.AlreadySet} {
			if got, err := s.SetBackdrop(ctx, m.ID, backdrop); err != nil || got != want {
				t.Fatalf("set backdrop: %v %v, want %v", got, err, want)
			}
			if got, err := s.SetPersonPhoto(ctx, withPhoto.ID, photo); err != nil || got != want {
				t.Fatalf("set photo: %v %v, want %v", got, err, want)
			}
		}
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events for a backdrop and a photo set twice, want 2", n-before)
		}
		if got, err := s.SetBackdrop(ctx, uuid.New(), backdrop); err != nil || got != poster.Gone {
			t.Fatalf("backdrop of an unknown movie: %v %v", got, err)
		}
		if got, err := s.SetPersonPhoto(ctx, uuid.New(), photo); err != nil || got != poster.Gone {
			t.Fatalf("photo of an unknown person: %v %v", got, err)
		}
		p, err := s.Person(ctx, withPhoto.ID)
		must(t, err)
		if p.PhotoKey == nil || *p.PhotoKey != photo || p.ProfilePath == nil || *p.ProfilePath != *withPhoto.ProfilePath {
			t.Fatalf("person's photo key %v and TMDb path %v", p.PhotoKey, p.ProfilePath)
		}

		// A conversion swaps both; the originals are no longer in use, the conversions are.
		for _, key := range []string{backdrop, photo} {
			if n, err := s.SwapImageKey(ctx, key, domain.ConvertedKey(key)); err != nil || n != 1 {
				t.Fatalf("swap of %s: %d, %v", key, n, err)
			}
			for k, want := range map[string]bool{key: false, domain.ConvertedKey(key): true} {
				if used, err := s.ImageKeyInUse(ctx, k); err != nil || used != want {
					t.Errorf("key %s in use %v %v, want %v", k, used, err, want)
				}
			}
		}
		if got, err := s.SetBackdrop(ctx, m.ID, backdrop); err != nil || got != poster.AlreadyConverted {
			t.Fatalf("setting the original of a converted backdrop: %v %v", got, err)
		}
		if got, err := s.SetPersonPhoto(ctx, withPhoto.ID, photo); err != nil || got != poster.AlreadyConverted {
			t.Fatalf("setting the original of a converted photo: %v %v", got, err)
		}

		// A later enrichment without a backdrop keeps the path and both keys.
		must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0.Add(time.Hour), "", nil, withPhoto)))
		imgs, err = s.MovieImages(ctx, m.ID)
		must(t, err)
		if imgs.BackdropPath != *e.BackdropPath || imgs.BackdropKey == nil || *imgs.BackdropKey != domain.ConvertedKey(backdrop) ||
			len(imgs.Cast) != 1 || imgs.Cast[0].PhotoKey == nil || *imgs.Cast[0].PhotoKey != domain.ConvertedKey(photo) {
			t.Fatalf("images after a second enrichment %+v", imgs)
		}
	})
}

// titles are the movies' titles, in order.
func titles(ms []domain.Movie) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Title)
	}
	return out
}
