package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/review"
)

// Imports is what RunImports needs of a store.
type Imports interface {
	Outbox
	importer.Store
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	MovieByExternalID(ctx context.Context, externalID string) (domain.Movie, error)
	ReviewEntry(ctx context.Context, id uuid.UUID) (review.Entry, error)
	DeleteExpiredImportSessions(ctx context.Context, now time.Time) (int64, error)
	DeleteImportRows(ctx context.Context, sessionID uuid.UUID, limit int) (int64, error)
}

// uploadSession stores a complete session of user with n rows (cells "row i"; row 1 has a read
// error), expiring at expires.
func uploadSession(t *testing.T, s Imports, user uuid.UUID, n int, expires time.Time) importer.Session {
	t.Helper()
	ctx := context.Background()
	is := importer.Session{ID: uuid.New(), UserID: user, Format: "csv", Kind: importer.KindCustom, Target: importer.TargetDiary,
		Columns: []string{"Title", "Rating"}, CreatedAt: t0, ExpiresAt: expires}
	must(t, s.CreateImportSession(ctx, is))
	var rows []importer.Row
	for i := range n {
		r := importer.Row{Index: i, Cells: []string{fmt.Sprintf("row %d", i), "4"}}
		if i == 1 {
			r.ReadErr = "bare quote in field"
		}
		rows = append(rows, r)
	}
	// Two chunks, as an upload stores them.
	must(t, s.AppendImportRows(ctx, is.ID, rows[:n/2]))
	must(t, s.AppendImportRows(ctx, is.ID, rows[n/2:]))
	must(t, s.CompleteImportSession(ctx, is.ID, n))
	is.RowCount = n
	return is
}

// reviewItem is a batch item: a review by user of tmdbMovie(movie) watched day days after t0.
func reviewItem(idx int, user uuid.UUID, movie, day int) importer.Item {
	return importer.Item{Index: idx, Review: newReview(user, 4, day), Movie: tmdbMovie(movie)}
}

// RunImports runs the diary import cases against stores open makes.
func RunImports(t *testing.T, open func(t *testing.T, faults *Faults) Imports) {
	ctx := context.Background()

	t.Run("SessionLifecycle", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		expires := t0.Add(importer.SessionTTL)

		// A session is invisible until its upload completes.
		pending := importer.Session{ID: uuid.New(), UserID: alice.ID, Format: "csv", Kind: importer.KindCustom,
			Target: importer.TargetDiary, Columns: []string{"Title"}, CreatedAt: t0, ExpiresAt: expires}
		must(t, s.CreateImportSession(ctx, pending))
		_, err := s.ImportSession(ctx, alice.ID, pending.ID, t0)
		wantKind(t, err, domain.KindNotFound, "Entity not found: import session")

		is := uploadSession(t, s, alice.ID, 5, expires)
		got, err := s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if got.ID != is.ID || got.UserID != alice.ID || got.Format != "csv" || got.Kind != importer.KindCustom ||
			got.Target != importer.TargetDiary || !slices.Equal(got.Columns, is.Columns) || got.RowCount != 5 ||
			got.Mappings != nil || got.Federate || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(expires) ||
			got.Progress != (importer.Progress{}) {
			t.Fatalf("session %+v, want %+v", got, is)
		}
		_, err = s.ImportSession(ctx, bob.ID, is.ID, t0)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.ImportSession(ctx, alice.ID, is.ID, expires)
		wantKind(t, err, domain.KindNotFound, "")

		// Rows read back in pages, with their read errors.
		first, err := s.ImportRows(ctx, is.ID, -1, 2)
		must(t, err)
		rest, err := s.ImportRows(ctx, is.ID, 1, 10)
		must(t, err)
		if len(first) != 2 || len(rest) != 3 || first[0].Index != 0 || rest[0].Index != 2 || rest[2].Index != 4 ||
			first[1].ReadErr != "bare quote in field" || first[0].ReadErr != "" ||
			!slices.Equal(rest[0].Cells, []string{"row 2", "4"}) {
			t.Fatalf("rows %+v then %+v", first, rest)
		}

		// Mappings are replaced whole.
		scale := 10.0
		ms := []importer.Mapping{{SourceColumn: "Title", Field: importer.FieldTitle},
			{SourceColumn: "Rating", Field: importer.FieldRating, RatingScale: &scale}}
		must(t, s.SetImportMappings(ctx, is.ID, ms))
		must(t, s.SetImportMappings(ctx, is.ID, ms[:1]))
		must(t, s.SetImportMappings(ctx, is.ID, ms))
		got, err = s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if len(got.Mappings) != 2 || got.Mappings[0] != ms[0] || got.Mappings[1].Field != importer.FieldRating ||
			got.Mappings[1].RatingScale == nil || *got.Mappings[1].RatingScale != 10 {
			t.Fatalf("mappings %+v", got.Mappings)
		}

		must(t, s.DeleteImportSession(ctx, is.ID))
		_, err = s.ImportSession(ctx, alice.ID, is.ID, t0)
		wantKind(t, err, domain.KindNotFound, "")
		if rows, err := s.ImportRows(ctx, is.ID, -1, 10); err != nil || len(rows) != 0 {
			t.Fatalf("rows of a deleted session: %v %v", rows, err)
		}
	})

	t.Run("DeletesInBatches", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		is := uploadSession(t, s, alice.ID, 1200, t0.Add(time.Hour))
		var got []int64
		for range 4 {
			n, err := s.DeleteImportRows(ctx, is.ID, 500)
			must(t, err)
			got = append(got, n)
		}
		if !slices.Equal(got, []int64{500, 500, 200, 0}) {
			t.Fatalf("batches deleted %v rows, want 500, 500, 200, 0", got)
		}
		if _, err := s.ImportSession(ctx, alice.ID, is.ID, t0); err != nil {
			t.Fatalf("the session without its rows: %v", err)
		}
		must(t, s.DeleteImportSession(ctx, is.ID))
	})

	t.Run("SelectAndWriteBatch", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		is := uploadSession(t, s, alice.ID, 6, t0.Add(time.Hour))
		if refs, err := s.InterruptedImportSessions(ctx, t0); err != nil || len(refs) != 0 {
			t.Fatalf("interrupted before any confirm: %v %v", refs, err)
		}

		// A missing index is ignored; the expiry moves later, never earlier.
		later := t0.Add(importer.SessionTTL)
		must(t, s.SelectImportRows(ctx, is.ID, []int{0, 2, 3, 4, 99}, true, later))
		must(t, s.SelectImportRows(ctx, is.ID, []int{2}, true, t0.Add(time.Minute)))
		got, err := s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if !got.Federate || !got.ExpiresAt.Equal(later) || got.Progress != (importer.Progress{Confirmed: 4}) {
			t.Fatalf("selected session: federate %v, expires %v, progress %+v", got.Federate, got.ExpiresAt, got.Progress)
		}
		pending, err := s.PendingImportRows(ctx, is.ID, 10)
		must(t, err)
		if idx := indices(pending); !slices.Equal(idx, []int{0, 2, 3, 4}) {
			t.Fatalf("pending rows %v", idx)
		}
		refs, err := s.InterruptedImportSessions(ctx, t0)
		must(t, err)
		if len(refs) != 1 || refs[0] != (importer.SessionRef{ID: is.ID, UserID: alice.ID}) {
			t.Fatalf("interrupted sessions %+v", refs)
		}

		// Row 3 is the same movie on the same day as row 0: a duplicate within the batch. Row 0
		// is a rewatch rated 3.5 stars (Letterboxd's half stars): rating 4, kept at 3.5.
		first := reviewItem(0, alice.ID, 1, 0)
		first.Review.RatingPrecise, first.Review.Rewatch = ptr(3.5), true
		b := importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Quiet: true, Now: t0,
			Items: []importer.Item{first, {Index: 2, Err: "rating out of range"}, reviewItem(3, alice.ID, 1, 0)}}
		must(t, s.WriteImportBatch(ctx, b))
		e, err := s.ReviewEntry(ctx, first.Review.ID)
		must(t, err)
		if e.Review.Rating != 4 || e.Review.RatingPrecise == nil || *e.Review.RatingPrecise != 3.5 || !e.Review.Rewatch {
			t.Fatalf("imported review: rating %d, precise %v, rewatch %v; want 4, 3.5, true", e.Review.Rating,
				e.Review.RatingPrecise, e.Review.Rewatch)
		}
		// A new movie (MovieDiscovered, MovieEnrichmentRequested) and one ReviewLogged.
		if n := events(t, s); n != 3 {
			t.Fatalf("%d events after the batch, want 3", n)
		}
		got, err = s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if want := (importer.Progress{Confirmed: 4, Processed: 3, Imported: 1, Duplicates: 1, Failed: 1}); got.Progress != want {
			t.Fatalf("progress %+v, want %+v", got.Progress, want)
		}
		failures, err := s.ImportFailures(ctx, is.ID)
		must(t, err)
		if len(failures) != 1 || failures[0] != (importer.Failure{Index: 2, Error: "rating out of range"}) {
			t.Fatalf("failures %+v", failures)
		}
		if dup, err := s.ImportDuplicate(ctx, alice.ID, tmdbMovie(1), t0.Add(3*time.Hour)); err != nil || !dup {
			t.Fatalf("a review on that day is a duplicate: %v %v", dup, err)
		}
		if dup, err := s.ImportDuplicate(ctx, alice.ID, tmdbMovie(1), t0.AddDate(0, 0, 1)); err != nil || dup {
			t.Fatalf("another day is not a duplicate: %v %v", dup, err)
		}
		if dup, err := s.ImportDuplicate(ctx, alice.ID, tmdbMovie(7), t0); err != nil || dup {
			t.Fatalf("a movie not stored is not a duplicate: %v %v", dup, err)
		}

		// The same batch again (a crash after its commit) writes nothing.
		err = s.WriteImportBatch(ctx, b)
		wantKind(t, err, domain.KindConflict, "")
		if n := events(t, s); n != 3 {
			t.Fatalf("%d events after the batch ran twice, want 3", n)
		}
		pending, err = s.PendingImportRows(ctx, is.ID, 10)
		must(t, err)
		if idx := indices(pending); !slices.Equal(idx, []int{4}) {
			t.Fatalf("pending rows after the batch %v", idx)
		}

		must(t, s.WriteImportBatch(ctx, importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Now: t0,
			Items: []importer.Item{reviewItem(4, alice.ID, 2, 1)}}))
		if refs, err := s.InterruptedImportSessions(ctx, t0); err != nil || len(refs) != 0 {
			t.Fatalf("interrupted once every row is written: %v %v", refs, err)
		}
	})

	t.Run("ConcurrentBatchWrittenOnce", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		is := uploadSession(t, s, alice.ID, 20, t0.Add(time.Hour))
		all := make([]int, 20)
		var items []importer.Item
		for i := range all {
			all[i] = i
			items = append(items, reviewItem(i, alice.ID, i, i))
		}
		must(t, s.SelectImportRows(ctx, is.ID, all, false, t0.Add(time.Hour)))
		b := importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Now: t0, Items: items}

		const writers = 4
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = s.WriteImportBatch(ctx, b)
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case domain.KindOf(err) != domain.KindConflict:
				t.Fatalf("a concurrent batch failed with %v, want a conflict", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d of %d concurrent batches succeeded, want 1 (errors %v)", ok, writers, errs)
		}
		// 20 new movies (2 events each) and 20 ReviewLogged.
		if n := events(t, s); n != 60 {
			t.Fatalf("%d events after concurrent batches, want 60", n)
		}
		got, err := s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if got.Progress != (importer.Progress{Confirmed: 20, Processed: 20, Imported: 20}) {
			t.Fatalf("progress %+v", got.Progress)
		}
	})

	t.Run("ConcurrentSessionsNoDuplicate", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		const movies = 60
		all := make([]int, movies)
		for i := range all {
			all[i] = i
		}
		// The movies exist already (reviewed on day 0), so nothing but the duplicate check keeps
		// two sessions from both logging a movie on day 5.
		batch := func(is importer.Session, day int) importer.Batch {
			must(t, s.SelectImportRows(ctx, is.ID, all, false, t0.Add(time.Hour)))
			b := importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Now: t0}
			for i := range all {
				b.Items = append(b.Items, reviewItem(i, alice.ID, i, day))
			}
			return b
		}
		must(t, s.WriteImportBatch(ctx, batch(uploadSession(t, s, alice.ID, movies, t0.Add(time.Hour)), 0)))
		before := events(t, s)
		sessions := []importer.Session{uploadSession(t, s, alice.ID, movies, t0.Add(time.Hour)),
			uploadSession(t, s, alice.ID, movies, t0.Add(time.Hour))}
		batches := []importer.Batch{batch(sessions[0], 5), batch(sessions[1], 5)}
		errs := make([]error, len(batches))
		var wg sync.WaitGroup
		for i, b := range batches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.WriteImportBatch(ctx, b)
			}()
		}
		wg.Wait()
		var sum importer.Progress
		for i, is := range sessions {
			must(t, errs[i])
			got, err := s.ImportSession(ctx, alice.ID, is.ID, t0)
			must(t, err)
			sum.Imported += got.Progress.Imported
			sum.Duplicates += got.Progress.Duplicates
		}
		if sum.Imported != movies || sum.Duplicates != movies {
			t.Fatalf("two sessions of the same reviews at once: %d imported, %d duplicates, want %d of each",
				sum.Imported, sum.Duplicates, movies)
		}
		if n := events(t, s); n != before+movies {
			t.Fatalf("%d events after the two sessions, want %d", n, before+movies)
		}
	})

	t.Run("ConcurrentUsersSameNewMovies", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		// Two users import the same new movies at once, in opposite orders: each batch waits for
		// movies the other is storing, and both must still be written in full.
		const movies = 60
		all := make([]int, movies)
		for i := range all {
			all[i] = i
		}
		var batches []importer.Batch
		for u, name := range []string{"alice", "bob"} {
			user := createUser(t, s, name)
			is := uploadSession(t, s, user.ID, movies, t0.Add(time.Hour))
			must(t, s.SelectImportRows(ctx, is.ID, all, false, t0.Add(time.Hour)))
			b := importer.Batch{SessionID: is.ID, UserID: user.ID, Target: importer.TargetDiary, Now: t0}
			for i := range all {
				movie := i
				if u == 1 {
					movie = movies - 1 - i
				}
				b.Items = append(b.Items, reviewItem(i, user.ID, movie, 0))
			}
			batches = append(batches, b)
		}
		errs := make([]error, len(batches))
		var wg sync.WaitGroup
		for i, b := range batches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.WriteImportBatch(ctx, b)
			}()
		}
		wg.Wait()
		for i, b := range batches {
			must(t, errs[i])
			got, err := s.ImportSession(ctx, b.UserID, b.SessionID, t0)
			must(t, err)
			if got.Progress.Imported != movies {
				t.Fatalf("user %d imported %d, want %d", i, got.Progress.Imported, movies)
			}
		}
		// The new movies stored once (2 events each), and each user's ReviewLogged.
		if n := events(t, s); n != 2*movies+2*movies {
			t.Fatalf("%d events, want %d", n, 4*movies)
		}
	})

	t.Run("WatchlistBatch", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		is := uploadSession(t, s, alice.ID, 2, t0.Add(time.Hour))
		must(t, s.SelectImportRows(ctx, is.ID, []int{0, 1}, false, t0.Add(time.Hour)))
		must(t, s.WriteImportBatch(ctx, importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetWatchlist,
			Now: t0, Items: []importer.Item{{Index: 0, Movie: tmdbMovie(3)}, {Index: 1, Movie: tmdbMovie(3)}}}))
		// A new movie (2 events) and one WatchlistEntryAdded; the second row is a duplicate.
		if n := events(t, s); n != 3 {
			t.Fatalf("%d events after the watchlist batch, want 3", n)
		}
		got, err := s.ImportSession(ctx, alice.ID, is.ID, t0)
		must(t, err)
		if got.Progress != (importer.Progress{Confirmed: 2, Processed: 2, Imported: 1, Duplicates: 1}) {
			t.Fatalf("progress %+v", got.Progress)
		}
		if on, err := s.ImportDuplicate(ctx, alice.ID, tmdbMovie(3), time.Time{}); err != nil || !on {
			t.Fatalf("the imported movie is on the watchlist: %v %v", on, err)
		}
	})

	t.Run("FailingEnqueueRollsBack", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		is := uploadSession(t, s, alice.ID, 3, t0.Add(time.Hour))
		must(t, s.SelectImportRows(ctx, is.ID, []int{0, 1, 2}, false, t0.Add(time.Hour)))
		b := importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Now: t0,
			Items: []importer.Item{reviewItem(0, alice.ID, 1, 0), {Index: 1, Err: "no title"}, reviewItem(2, alice.ID, 2, 0)}}
		faults.Set(true)
		err := s.WriteImportBatch(ctx, b)
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("batch with a failing enqueue: %v", err)
		}
		if n := events(t, s); n != 0 {
			t.Fatalf("%d events after the failed batch", n)
		}
		if _, err := s.MovieByExternalID(ctx, "tmdb:1"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("the movie of the failed batch: %v", err)
		}
		pending, err := s.PendingImportRows(ctx, is.ID, 10)
		must(t, err)
		if idx := indices(pending); !slices.Equal(idx, []int{0, 1, 2}) {
			t.Fatalf("pending rows after the failed batch %v", idx)
		}
		// Resumed, the batch writes in full.
		must(t, s.WriteImportBatch(ctx, b))
		if n := events(t, s); n != 6 {
			t.Fatalf("%d events after the resumed batch, want 6", n)
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		soon := uploadSession(t, s, alice.ID, 2, t0.Add(time.Hour))
		must(t, s.SelectImportRows(ctx, soon.ID, []int{0}, false, t0.Add(time.Hour)))
		late := uploadSession(t, s, alice.ID, 2, t0.Add(2*time.Hour))
		// An upload whose request died never completes; it expires like the others.
		dead := importer.Session{ID: uuid.New(), UserID: alice.ID, Format: "csv", Kind: importer.KindCustom,
			Target: importer.TargetDiary, Columns: []string{"Title"}, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		must(t, s.CreateImportSession(ctx, dead))
		must(t, s.AppendImportRows(ctx, dead.ID, []importer.Row{{Index: 0, Cells: []string{"x"}}}))

		// An expired session is no longer interrupted, even before it is deleted.
		if refs, err := s.InterruptedImportSessions(ctx, t0.Add(time.Hour)); err != nil || len(refs) != 0 {
			t.Fatalf("interrupted at its expiry: %v %v", refs, err)
		}
		n, err := s.DeleteExpiredImportSessions(ctx, t0.Add(time.Hour))
		must(t, err)
		if n != 2 {
			t.Fatalf("deleted %d expired sessions, want 2", n)
		}
		for _, id := range []uuid.UUID{soon.ID, dead.ID} {
			if rows, err := s.ImportRows(ctx, id, -1, 10); err != nil || len(rows) != 0 {
				t.Fatalf("rows of an expired session: %v %v", rows, err)
			}
		}
		if _, err := s.ImportSession(ctx, alice.ID, late.ID, t0.Add(time.Hour)); err != nil {
			t.Fatalf("the session not yet expired: %v", err)
		}
		if n, err := s.DeleteExpiredImportSessions(ctx, t0.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("deleting again: %d %v", n, err)
		}
	})

	t.Run("Profiles", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		ms := []importer.Mapping{{SourceColumn: "Date", Field: importer.FieldWatchedAt, DateFormat: "02/01/2006"}}
		older := importer.Profile{ID: uuid.New(), UserID: alice.ID, Name: "Letterboxd", Mappings: ms, CreatedAt: t0}
		newer := importer.Profile{ID: uuid.New(), UserID: alice.ID, Name: "Sheet", Mappings: ms, CreatedAt: t0.Add(time.Minute)}
		must(t, s.SaveImportProfile(ctx, newer))
		must(t, s.SaveImportProfile(ctx, older))
		list, err := s.ImportProfiles(ctx, alice.ID)
		must(t, err)
		if len(list) != 2 || list[0].ID != older.ID || list[1].ID != newer.ID || !list[0].CreatedAt.Equal(t0) ||
			len(list[0].Mappings) != 1 || list[0].Mappings[0] != ms[0] {
			t.Fatalf("profiles %+v", list)
		}
		got, err := s.ImportProfile(ctx, alice.ID, newer.ID)
		must(t, err)
		if got.Name != "Sheet" || got.UserID != alice.ID {
			t.Fatalf("profile %+v", got)
		}
		_, err = s.ImportProfile(ctx, bob.ID, newer.ID)
		wantKind(t, err, domain.KindNotFound, "Entity not found: import profile")
		wantKind(t, s.DeleteImportProfile(ctx, bob.ID, newer.ID), domain.KindNotFound, "")
		must(t, s.DeleteImportProfile(ctx, alice.ID, newer.ID))
		wantKind(t, s.DeleteImportProfile(ctx, alice.ID, newer.ID), domain.KindNotFound, "")
		if list, err := s.ImportProfiles(ctx, bob.ID); err != nil || len(list) != 0 {
			t.Fatalf("bob's profiles %v %v", list, err)
		}
	})
}

// indices are the rows' indices, in order.
func indices(rows []importer.Row) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.Index
	}
	return out
}
