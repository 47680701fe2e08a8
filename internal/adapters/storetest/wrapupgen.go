package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/wrapup"
)

// WrapUpGeneration is what RunWrapUpGeneration needs of a store: wrap-up requests, their generation, the
// viewings they summarise, and the settings that make them public.
type WrapUpGeneration interface {
	Outbox
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	LogReview(ctx context.Context, r domain.Review, m domain.Movie, idem *review.Idempotency) (review.Logged, error)
	SaveMovieEnrichment(ctx context.Context, e enrichment.MovieEnrichment) error

	RequestWrapUp(ctx context.Context, w domain.WrapUp) (domain.WrapUp, error)
	WrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, error)
	WrapUps(ctx context.Context, user uuid.UUID) ([]domain.WrapUp, error)
	DeleteWrapUp(ctx context.Context, id uuid.UUID) error
	WrapUpOfRange(ctx context.Context, user *uuid.UUID, start, end domain.Date) (domain.WrapUp, error)
	StartWrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, bool, error)
	WrapUpViewings(ctx context.Context, user *uuid.UUID, start, end domain.Date) ([]wrapup.Viewing, error)
	RegenerateWrapUp(ctx context.Context, id uuid.UUID) (bool, error)
	CompleteWrapUp(ctx context.Context, id uuid.UUID, report json.RawMessage, at time.Time) (bool, error)
	FailWrapUp(ctx context.Context, id uuid.UUID, msg string) error
	CleanupWrapUps(ctx context.Context, failedBefore, stuckBefore time.Time) (deleted, failed int64, err error)

	Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error)
	SaveSettings(ctx context.Context, user uuid.UUID, fs domain.FederationSettings) error
	WrapUpsPublic(ctx context.Context, user uuid.UUID) (bool, error)
	SetWrapUpsPublic(ctx context.Context, user uuid.UUID, public bool) error
}

// year2025 is the wrap-up range of the suite.
var year2025Start, year2025End = domain.NewDate(2025, 1, 1), domain.NewDate(2025, 12, 31)

// newWrapUp is a Pending wrap-up of user (nil: the instance) over 2025, created at created.
func newWrapUp(user *uuid.UUID, created time.Time) domain.WrapUp {
	return domain.WrapUp{ID: uuid.New(), UserID: user, Status: domain.WrapUpPending, StartDate: year2025Start,
		EndDate: year2025End, CreatedAt: created}
}

// currentReport is a report of the current schema.
var currentReport = json.RawMessage(`{"` + wrapup.CurrentSchemaKey + `": [], "total": 3}`)

// RunWrapUpGeneration runs the wrap-up generation and settings cases against stores open makes.
func RunWrapUpGeneration(t *testing.T, open func(t *testing.T, faults *Faults) WrapUpGeneration) {
	ctx := context.Background()

	t.Run("RequestOnceAndRead", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		first, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
		must(t, err)
		again, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0.Add(time.Minute)))
		must(t, err)
		if again.ID != first.ID || events(t, s) != 1 {
			t.Fatalf("second request %v (first %v), %d events; want the live one and one event", again.ID, first.ID, events(t, s))
		}
		inst, err := s.RequestWrapUp(ctx, newWrapUp(nil, t0.Add(time.Hour)))
		must(t, err)
		instAgain, err := s.RequestWrapUp(ctx, newWrapUp(nil, t0.Add(2*time.Hour)))
		must(t, err)
		if inst.ID == first.ID || instAgain.ID != inst.ID || events(t, s) != 2 {
			t.Fatalf("instance-wide requests %v, %v (user's %v), %d events", inst.ID, instAgain.ID, first.ID, events(t, s))
		}
		got, err := s.WrapUp(ctx, first.ID)
		must(t, err)
		if got.Status != domain.WrapUpPending || *got.UserID != u.ID || got.StartDate != year2025Start ||
			got.EndDate != year2025End || !got.CreatedAt.Equal(t0) || got.CompletedAt != nil || got.Report != nil {
			t.Fatalf("wrap-up %+v", got)
		}
		list, err := s.WrapUps(ctx, u.ID)
		must(t, err)
		if len(list) != 2 || list[0].ID != inst.ID || list[1].ID != first.ID || list[0].UserID != nil {
			t.Fatalf("list %+v, want the instance's (newer) then the user's", list)
		}
		of, err := s.WrapUpOfRange(ctx, nil, year2025Start, year2025End)
		must(t, err)
		if of.ID != inst.ID {
			t.Fatalf("instance range: %v, want %v", of.ID, inst.ID)
		}
		_, err = s.WrapUpOfRange(ctx, &u.ID, year2025Start, domain.NewDate(2025, 6, 30))
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.WrapUp(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		wantKind(t, s.DeleteWrapUp(ctx, uuid.New()), domain.KindNotFound, "")
		must(t, s.DeleteWrapUp(ctx, first.ID))
		_, err = s.WrapUp(ctx, first.ID)
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("Lifecycle", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		w, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
		must(t, err)
		if _, ok, err := s.StartWrapUp(ctx, uuid.New()); err != nil || ok {
			t.Fatalf("start of an unknown wrap-up: %v, %v", ok, err)
		}
		for range 2 { // started, then resumed after a crash
			got, ok, err := s.StartWrapUp(ctx, w.ID)
			if err != nil || !ok || got.Status != domain.WrapUpGenerating {
				t.Fatalf("start: %+v, %v, %v", got, ok, err)
			}
		}
		before := events(t, s)
		done, err := s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{"old": true}`), t0.Add(time.Hour))
		must(t, err)
		again, err := s.CompleteWrapUp(ctx, w.ID, currentReport, t0.Add(2*time.Hour))
		must(t, err)
		if !done || again || events(t, s) != before+1 {
			t.Fatalf("completions %v, %v with %d events; want the first only, with WrapUpCompleted", done, again, events(t, s)-before)
		}
		got, err := s.WrapUp(ctx, w.ID)
		must(t, err)
		if got.Status != domain.WrapUpReady || got.CompletedAt == nil || !got.CompletedAt.Equal(t0.Add(time.Hour)) ||
			string(got.Report) != `{"old": true}` {
			t.Fatalf("completed %+v (report %s)", got, got.Report)
		}
		if _, ok, err := s.StartWrapUp(ctx, w.ID); err != nil || ok {
			t.Fatalf("start of a Ready wrap-up: %v, %v", ok, err)
		}
		// An old report is requested again, once.
		before = events(t, s)
		ok, err := s.RegenerateWrapUp(ctx, w.ID)
		must(t, err)
		ok2, err := s.RegenerateWrapUp(ctx, w.ID)
		must(t, err)
		if !ok || ok2 || events(t, s) != before+1 {
			t.Fatalf("regenerations %v, %v with %d events", ok, ok2, events(t, s)-before)
		}
		if got, _ = s.WrapUp(ctx, w.ID); got.Status != domain.WrapUpPending || got.Report != nil || got.CompletedAt != nil {
			t.Fatalf("regenerated %+v", got)
		}
		_, _, err = s.StartWrapUp(ctx, w.ID)
		must(t, err)
		_, err = s.CompleteWrapUp(ctx, w.ID, currentReport, t0)
		must(t, err)
		if ok, err = s.RegenerateWrapUp(ctx, w.ID); err != nil || ok {
			t.Fatalf("a current report regenerated: %v, %v", ok, err)
		}
		_, err = s.RegenerateWrapUp(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
	})

	t.Run("FailedRetryAndSuperseded", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		w, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
		must(t, err)
		_, _, err = s.StartWrapUp(ctx, w.ID)
		must(t, err)
		must(t, s.FailWrapUp(ctx, w.ID, "TMDb down"))
		got, err := s.WrapUp(ctx, w.ID)
		must(t, err)
		if got.Status != domain.WrapUpFailed || *got.ErrorMessage != "TMDb down" {
			t.Fatalf("failed %+v", got)
		}
		// A failed one is retried…
		if got, ok, err := s.StartWrapUp(ctx, w.ID); err != nil || !ok || got.ErrorMessage != nil {
			t.Fatalf("retry: %+v, %v, %v", got, ok, err)
		}
		must(t, s.FailWrapUp(ctx, w.ID, "again"))
		// …unless a newer request of the range is live: the index refuses it, and that is no error.
		newer, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0.Add(time.Hour)))
		must(t, err)
		if newer.ID == w.ID {
			t.Fatal("a failed wrap-up counted as live")
		}
		if _, ok, err := s.StartWrapUp(ctx, w.ID); err != nil || ok {
			t.Fatalf("start of a superseded wrap-up: %v, %v", ok, err)
		}
		if got, _ := s.WrapUp(ctx, w.ID); got.Status != domain.WrapUpFailed {
			t.Fatalf("superseded wrap-up became %v", got.Status)
		}
		if _, ok, err := s.StartWrapUp(ctx, newer.ID); err != nil || !ok {
			t.Fatalf("start of the newer request: %v, %v", ok, err)
		}
	})

	t.Run("Cleanup", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u, v := createUser(t, s, "alice"), createUser(t, s, "bob")
		failed, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
		must(t, err)
		_, _, err = s.StartWrapUp(ctx, failed.ID)
		must(t, err)
		must(t, s.FailWrapUp(ctx, failed.ID, "x"))
		stuck, err := s.RequestWrapUp(ctx, newWrapUp(&v.ID, t0))
		must(t, err)
		fresh, err := s.RequestWrapUp(ctx, newWrapUp(nil, t0.Add(48*time.Hour)))
		must(t, err)
		deleted, failedN, err := s.CleanupWrapUps(ctx, t0.Add(time.Hour), t0.Add(time.Hour))
		must(t, err)
		if deleted != 1 || failedN != 1 {
			t.Fatalf("cleanup deleted %d, failed %d; want 1, 1", deleted, failedN)
		}
		_, err = s.WrapUp(ctx, failed.ID)
		wantKind(t, err, domain.KindNotFound, "")
		if got, _ := s.WrapUp(ctx, stuck.ID); got.Status != domain.WrapUpFailed || *got.ErrorMessage != "generation did not finish" {
			t.Fatalf("stuck %+v", got)
		}
		if got, _ := s.WrapUp(ctx, fresh.ID); got.Status != domain.WrapUpPending {
			t.Fatalf("fresh %+v", got)
		}
	})

	t.Run("WritesAtomicWithEvents", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		u := createUser(t, s, "alice")
		faults.Set(true)
		if _, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0)); err == nil {
			t.Fatal("request committed without its event")
		}
		faults.Set(false)
		if _, err := s.WrapUpOfRange(ctx, &u.ID, year2025Start, year2025End); domain.KindOf(err) != domain.KindNotFound {
			t.Fatalf("a failed request left a wrap-up: %v", err)
		}
		w, err := s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
		must(t, err)
		_, _, err = s.StartWrapUp(ctx, w.ID)
		must(t, err)
		before := events(t, s)
		faults.Set(true)
		if done, err := s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{}`), t0); err == nil {
			t.Fatalf("completion committed without its event (%v)", done)
		}
		faults.Set(false)
		got, err := s.WrapUp(ctx, w.ID)
		must(t, err)
		if got.Status != domain.WrapUpGenerating || got.Report != nil || events(t, s) != before {
			t.Fatalf("a failed completion left %+v and %d events", got, events(t, s)-before)
		}
		done, err := s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{}`), t0)
		must(t, err)
		if !done || events(t, s) != before+1 {
			t.Fatalf("completion after the failure: %v, %d events", done, events(t, s)-before)
		}
		faults.Set(true)
		if ok, err := s.RegenerateWrapUp(ctx, w.ID); err == nil {
			t.Fatalf("regeneration committed without its event (%v)", ok)
		}
		faults.Set(false)
		if got, _ = s.WrapUp(ctx, w.ID); got.Status != domain.WrapUpReady || string(got.Report) != `{}` {
			t.Fatalf("a failed regeneration left %+v", got)
		}
	})

	t.Run("ConcurrentRequestsAndCompletions", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		const n = 8
		ids := make([]uuid.UUID, n)
		errs := make([]error, n)
		race := func(f func(i int)) {
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() { <-start; f(i) })
			}
			close(start)
			wg.Wait()
			for _, err := range errs {
				must(t, err)
			}
		}
		race(func(i int) {
			var w domain.WrapUp
			w, errs[i] = s.RequestWrapUp(ctx, newWrapUp(&u.ID, t0))
			ids[i] = w.ID
		})
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("concurrent requests got %v, want one wrap-up", ids)
			}
		}
		if events(t, s) != 1 {
			t.Fatalf("%d events for concurrent requests, want 1", events(t, s))
		}
		_, _, err := s.StartWrapUp(ctx, ids[0])
		must(t, err)
		done := make([]bool, n)
		race(func(i int) { done[i], errs[i] = s.CompleteWrapUp(ctx, ids[0], currentReport, t0) })
		if c := len(slices.DeleteFunc(done, func(d bool) bool { return !d })); c != 1 || events(t, s) != 2 {
			t.Fatalf("%d of %d concurrent completions won (%d events), want 1", c, n, events(t, s))
		}
	})

	t.Run("Viewings", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u, v := createUser(t, s, "alice"), createUser(t, s, "bob")
		must(t, s.UpdateProfile(ctx, u.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.DisplayName = "Alice A."
			return nil, nil
		}))
		in := func(user uuid.UUID, date domain.Date, m domain.Movie) domain.Movie {
			r := domain.Review{ID: uuid.New(), UserID: user, Rating: 4, WatchedAt: date.Time().Add(20 * time.Hour), CreatedAt: t0, UpdatedAt: t0}
			got, err := s.LogReview(ctx, r, m, nil)
			must(t, err)
			return got.Movie
		}
		m1 := in(u.ID, domain.NewDate(2025, 3, 1), tmdbMovie(1))
		in(u.ID, domain.NewDate(2024, 12, 31), tmdbMovie(2)) // before the range
		in(v.ID, domain.NewDate(2025, 12, 31), tmdbMovie(3)) // its last day
		in(v.ID, domain.NewDate(2026, 1, 1), tmdbMovie(4))   // after it
		e := movieEnrichment(m1.ID, t0, "o", []string{"space", "crew"},
			person(1, "Dir Ector"), person(2, "Cast Two"), person(3, "Cast Three"), person(4, "Cast Four"), person(5, "Cast Five"))
		must(t, s.SaveMovieEnrichment(ctx, e))

		all, err := s.WrapUpViewings(ctx, nil, year2025Start, year2025End)
		must(t, err)
		if len(all) != 2 || all[0].MovieID != m1.ID || all[1].UserName != "bob" {
			t.Fatalf("viewings of everyone %+v", all)
		}
		mine, err := s.WrapUpViewings(ctx, &u.ID, year2025Start, year2025End)
		must(t, err)
		if len(mine) != 1 {
			t.Fatalf("alice's viewings %+v", mine)
		}
		got := mine[0]
		wantCast := []string{"Dir Ector", "Cast Two", "Cast Three", "Cast Four"}
		var cast []string
		for _, c := range got.Cast {
			cast = append(cast, c.Name)
		}
		if got.UserName != "Alice A." || got.Title != "Movie 1" || got.Year != 1991 || got.Director == nil ||
			*got.Director != "Dir Ector" || got.DirectorID == nil || *got.DirectorID != enrichment.PersonID(1) ||
			got.Budget == nil || *got.Budget != 11000000 || !slices.Equal(got.Keywords, []string{"space", "crew"}) ||
			!slices.Equal(got.Genres, []string{"Science Fiction", "Drama"}) || got.Runtime == nil || *got.Runtime != 117 ||
			!slices.Equal(cast, wantCast) || got.Cast[0].PersonID != enrichment.PersonID(1) || got.Rating != 4 {
			t.Fatalf("viewing %+v", got)
		}
		// A movie never enriched has no budget and no keywords.
		other, err := s.WrapUpViewings(ctx, &v.ID, year2025Start, year2025End)
		must(t, err)
		if len(other) != 1 || other[0].Budget != nil || len(other[0].Keywords) != 0 || len(other[0].Cast) != 0 ||
			other[0].DirectorID != nil {
			t.Fatalf("unenriched viewing %+v", other)
		}
	})

	t.Run("Settings", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		u := createUser(t, s, "alice")
		fs, err := s.Settings(ctx, u.ID)
		must(t, err)
		public, err := s.WrapUpsPublic(ctx, u.ID)
		must(t, err)
		if fs != domain.DefaultFederationSettings || public {
			t.Fatalf("defaults %+v, public %v", fs, public)
		}
		must(t, s.SetWrapUpsPublic(ctx, u.ID, true))
		if fs, _ = s.Settings(ctx, u.ID); fs != domain.DefaultFederationSettings {
			t.Fatalf("making wrap-ups public changed the federation settings: %+v", fs)
		}
		want := domain.FederationSettings{Reviews: false, Watchlist: true, Goals: false}
		must(t, s.SaveSettings(ctx, u.ID, want))
		must(t, s.SaveSettings(ctx, u.ID, want))
		fs, err = s.Settings(ctx, u.ID)
		must(t, err)
		public, err = s.WrapUpsPublic(ctx, u.ID)
		must(t, err)
		if fs != want || !public {
			t.Fatalf("saved %+v, public %v", fs, public)
		}
		must(t, s.SetWrapUpsPublic(ctx, u.ID, false))
		if public, _ = s.WrapUpsPublic(ctx, u.ID); public {
			t.Fatal("wrap-ups still public")
		}
		if events(t, s) != 0 {
			t.Fatalf("settings wrote %d events, want none", events(t, s))
		}
	})
}
