package wrapup_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

var _ wrapup.GenerationStore = (*sqlite.Store)(nil)

// failing is the real store with a switchable failure in the viewings query.
type failing struct {
	*sqlite.Store
	mu   sync.Mutex
	fail bool
}

func (f *failing) WrapUpViewings(ctx context.Context, u *uuid.UUID, s, e domain.Date) ([]wrapup.Viewing, error) {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail {
		return nil, mediatest.ErrInjected
	}
	return f.Store.WrapUpViewings(ctx, u, s, e)
}

type bundle struct {
	*mediatest.Env
	store *failing
	gen   *wrapup.Generator
	user  uuid.UUID
	w     domain.WrapUp
}

// setup stores two movies and a user's 2024 diary, and requests the user's 2024 wrap-up.
func setup(t *testing.T) *bundle {
	t.Helper()
	env := mediatest.New(t)
	b := &bundle{Env: env, store: &failing{Store: env.Store}}
	b.gen = wrapup.NewGenerator(b.store, func() time.Time { return time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC) }, env.Log)
	b.user = env.AddUser("alice")
	other := env.AddUser("bob")
	br := env.AddMovie("tt0083658", "Blade Runner", 1982)
	heat := env.AddMovie("tt0113277", "Heat", 1995)
	env.Exec(`UPDATE movies SET director = 'Ridley Scott', runtime_minutes = 118, genres = '["Science Fiction","Drama"]' WHERE id = ?`, br.String())
	env.Exec(`UPDATE movies SET director = 'Michael Mann', runtime_minutes = 170, genres = '["Crime","Drama"]' WHERE id = ?`, heat.String())
	ford := uuid.New()
	env.Exec(`INSERT INTO people (id, external_id, name) VALUES (?, 'tmdb:3', 'Harrison Ford')`, ford.String())
	env.Exec(`INSERT INTO movie_credits (movie_id, person_id, kind, role, billing_order) VALUES (?, ?, 'cast', 'Deckard', 0)`, br.String(), ford.String())
	env.Exec(`UPDATE people SET profile_path = '/ford.jpg' WHERE id = ?`, ford.String())
	scott := uuid.New()
	env.Exec(`INSERT INTO people (id, external_id, name) VALUES (?, 'tmdb:578', 'Ridley Scott')`, scott.String())
	env.Exec(`INSERT INTO movie_credits (movie_id, person_id, kind, role, department) VALUES (?, ?, 'crew', 'Director', 'Directing')`, br.String(), scott.String())
	env.Exec(`UPDATE movies SET original_language = 'en', poster_path = 'posters/br' WHERE id = ?`, br.String())
	env.Exec(`INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES (?, ?, '2024-01-01T00:00:00Z')`, br.String(),
		`{"tmdb_id": 78, "budget_usd": 28000000, "keywords": [{"tmdb_id": 1, "name": "android"}, {"tmdb_id": 2, "name": "dystopia"}]}`)
	cinema, tv := "cinema", "tv"
	env.AddReview(b.user, br, 5, "2024-01-10T20:00:00.000Z", &cinema)
	env.AddReview(b.user, br, 4, "2024-03-05T20:00:00.000Z", &tv)
	env.AddReview(b.user, heat, 3, "2024-12-31T23:00:00.000Z", nil)
	env.AddReview(b.user, heat, 1, "2025-01-01T00:00:00.000Z", nil) // after the range
	env.AddReview(other, heat, 2, "2024-06-01T00:00:00.000Z", nil)  // someone else
	start, end, _ := domain.NewWrapUpRange("2024-01-01", "2024-12-31")
	w, err := env.Store.RequestWrapUp(context.Background(), domain.WrapUp{ID: uuid.New(), UserID: &b.user,
		Status: domain.WrapUpPending, StartDate: start, EndDate: end, CreatedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	b.w = w
	return b
}

func (b *bundle) event() domain.Event {
	return domain.WrapUpRequested{WrapUpID: b.w.ID, UserID: b.w.UserID, StartDate: b.w.StartDate, EndDate: b.w.EndDate}
}

// ready checks the wrap-up is Ready with the right report and one WrapUpCompleted.
func (b *bundle) ready(t *testing.T) {
	t.Helper()
	w, err := b.Store.WrapUp(context.Background(), b.w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if w.Status != domain.WrapUpReady || w.CompletedAt == nil || w.ErrorMessage != nil {
		t.Fatalf("wrap-up = %s (error %v)", w.Status, w.ErrorMessage)
	}
	if n := b.Events("WrapUpCompleted"); n != 1 {
		t.Errorf("%d WrapUpCompleted, want 1", n)
	}
	var r wrapup.Report
	if err := json.Unmarshal(w.Report, &r); err != nil {
		t.Fatal(err)
	}
	if r.Scope.User == nil || *r.Scope.User != b.user || r.TotalMovies != 3 || r.TotalWatchTimeMinutes != 118*2+170 ||
		r.RatingDistribution != [5]int{0, 0, 1, 1, 1} || r.AvgRating == nil || *r.AvgRating != 4 ||
		r.TotalRewatches != 1 || r.MostRewatchedMovie == nil || r.MostRewatchedMovie.Title != "Blade Runner" {
		t.Errorf("report totals = %+v", r)
	}
	if len(r.MoviesPerMonth) != 12 || r.MoviesPerMonth[0] != (wrapup.MonthCount{YearMonth: "2024-01", Label: "Jan 2024", Count: 1}) ||
		r.MoviesPerMonth[11].Count != 1 || r.BusiestMonth == nil || *r.BusiestMonth != "Jan 2024" {
		t.Errorf("movies_per_month = %+v, busiest %v", r.MoviesPerMonth, r.BusiestMonth)
	}
	// Genres count viewings: Drama three times, Science Fiction twice, Crime once.
	if len(r.TopGenres) != 3 || r.TopGenres[0].Genre != "Drama" || r.TopGenres[0].Count != 3 || r.GenreDiversity != 3 ||
		len(r.TopDirectors) != 1 || r.TopDirectors[0].Name != "Ridley Scott" || r.DirectorDiversity != 2 ||
		len(r.TopActors) != 1 || r.TopActors[0].Name != "Harrison Ford" || r.TopActors[0].AvgRating != 4.5 {
		t.Errorf("rankings: genres %v directors %v actors %v", r.TopGenres, r.TopDirectors, r.TopActors)
	}
	if len(r.WatchMediumDistribution) != 2 {
		t.Errorf("media = %v", r.WatchMediumDistribution)
	}
	// What the store reads from the enriched profile, the credits and the people.
	if r.TotalBudgetWatched == nil || *r.TotalBudgetWatched != 56000000 || len(r.TopKeywords) != 2 ||
		r.TopKeywords[0] != (wrapup.KeywordStat{Keyword: "android", Count: 2}) || len(r.LanguageDistribution) != 1 ||
		len(r.TopCastProfilePaths) != 1 || r.TopCastProfilePaths[0] != "/ford.jpg" || r.TopActors[0].PersonID == nil ||
		r.TopDirectors[0].PersonID == nil || len(r.PosterPaths) != 1 || r.PosterPaths[0] != "posters/br" ||
		r.LongestMovie == nil || r.LongestMovie.Title != "Heat" || r.LongestMovie.Year != 1995 {
		t.Errorf("enriched figures: budget %v keywords %v languages %v profiles %v actors %v directors %v posters %v longest %+v",
			r.TotalBudgetWatched, r.TopKeywords, r.LanguageDistribution, r.TopCastProfilePaths, r.TopActors, r.TopDirectors,
			r.PosterPaths, r.LongestMovie)
	}
}

func TestGenerateTwiceEmitsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 2 {
		if err := b.gen.Handle(context.Background(), b.event()); err != nil {
			t.Fatal(err)
		}
	}
	b.ready(t)
}

func TestGeneratingLeftByACrashIsResumed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// The first delivery moved it to Generating and died.
	if _, ok, err := b.Store.StartWrapUp(ctx, b.w.ID); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := b.gen.Handle(ctx, b.event()); err != nil {
		t.Fatal(err)
	}
	b.ready(t)
}

func TestFailureIsRecordedThenRetried(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"computing", "completing"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			if step == "computing" {
				b.store.fail = true
			} else {
				b.FailEnqueue.Store(true)
			}
			err := b.gen.Handle(ctx, b.event())
			if err == nil || domain.IsPermanent(err) {
				t.Fatalf("injected failure: %v, want transient", err)
			}
			w, _ := b.Store.WrapUp(ctx, b.w.ID)
			if w.Status != domain.WrapUpFailed || w.ErrorMessage == nil || *w.ErrorMessage == "" || w.Report != nil {
				t.Fatalf("after the failure: %s %v, report %s", w.Status, w.ErrorMessage, w.Report)
			}
			if b.Events("WrapUpCompleted") != 0 {
				t.Fatal("WrapUpCompleted emitted by a failed completion")
			}
			b.store.fail = false
			b.FailEnqueue.Store(false)
			for range 2 {
				if err := b.gen.Handle(ctx, b.event()); err != nil {
					t.Fatal(err)
				}
			}
			b.ready(t)
		})
	}
}

func TestGenerateSkipsWhatIsNotToDo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// Failed, then superseded by a new request of the same range: the old event does nothing.
	b.Exec(`UPDATE wrapups SET status = 'Failed'`)
	start, end := b.w.StartDate, b.w.EndDate
	if _, err := b.Store.RequestWrapUp(ctx, domain.WrapUp{ID: uuid.New(), UserID: &b.user, Status: domain.WrapUpPending,
		StartDate: start, EndDate: end, CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := b.gen.Handle(ctx, b.event()); err != nil {
		t.Fatal(err)
	}
	if w, _ := b.Store.WrapUp(ctx, b.w.ID); w.Status != domain.WrapUpFailed {
		t.Errorf("superseded wrap-up = %s, want still Failed", w.Status)
	}
	if err := b.gen.Handle(ctx, domain.WrapUpRequested{WrapUpID: uuid.New(), StartDate: start, EndDate: end}); err != nil {
		t.Errorf("deleted wrap-up: %v", err)
	}
}

func TestCleanupWrapUps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// Nothing is old yet.
	if d, f, err := b.Store.CleanupWrapUps(ctx, time.Now().Add(-7*24*time.Hour), time.Now().Add(-24*time.Hour)); err != nil || d+f != 0 {
		t.Fatalf("fresh: %d deleted, %d failed, %v", d, f, err)
	}
	// A day later the Pending one is stuck: failed, so the range can be requested again; a week
	// later it is deleted.
	if _, f, _ := b.Store.CleanupWrapUps(ctx, time.Now(), time.Now().Add(time.Hour)); f != 1 {
		t.Errorf("stuck: %d failed, want 1", f)
	}
	if d, _, _ := b.Store.CleanupWrapUps(ctx, time.Now().Add(time.Hour), time.Now().Add(time.Hour)); d != 1 {
		t.Errorf("old failed: %d deleted, want 1", d)
	}
}
