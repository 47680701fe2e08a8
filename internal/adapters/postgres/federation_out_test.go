package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/domain"
)

// TestPublishOrdersAnObjectsActivitiesUnderAFrozenClock: with every activity stamped in the
// same millisecond (SQLite breaks that tie with the rowid, which PostgreSQL has not), the later
// publication of an object is still its latest activity and the superseded ones are pruned,
// whatever the ids' order; concurrent publications of one object get distinct stamps.
func TestPublishOrdersAnObjectsActivitiesUnderAFrozenClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	frozen := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, url := open(t, postgres.WithClock(func() time.Time { return frozen }))
	actor := uuid.New()
	o1, o2, o3 := "https://local.example/reviews/1", "https://local.example/reviews/2", "https://local.example/reviews/3"
	pub := func(id, typ, object string) domain.Publication {
		doc, _ := json.Marshal(map[string]string{"id": id, "type": typ, "object": object})
		return domain.Publication{ActivityID: id, Type: typ, ActorID: actor, ObjectID: object, Activity: doc}
	}
	const base = "https://local.example/activities/"
	for _, p := range []domain.Publication{
		pub(base+"c1", "Create", o1), pub(base+"u1b", "Update", o1), pub(base+"u1a", "Update", o1),
		pub(base+"x2", "Create", o2), pub(base+"d2", "Delete", o2),
	} {
		if err := s.Publish(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	latestID := func(object string) string {
		t.Helper()
		doc, err := s.LatestActivity(ctx, object)
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(doc, &a); err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	if got := latestID(o1); got != base+"u1a" {
		t.Fatalf("latest activity of o1 %s, want the last published", got)
	}
	if got := latestID(o2); got != base+"d2" {
		t.Fatalf("latest activity of o2 %s, want its Delete", got)
	}
	ids, err := s.ActivityIDs(ctx, "Update", []string{o1})
	if err != nil || ids[o1] != base+"u1a" {
		t.Fatalf("update ids %v %v", ids, err)
	}
	_, acts, err := s.PruneFederation(ctx, frozen.Add(time.Hour), time.Minute, time.Minute)
	if err != nil || acts != 2 {
		t.Fatalf("pruned %d activities, %v; want 2 (u1b and x2)", acts, err)
	}
	for id, kept := range map[string]bool{"c1": true, "u1a": true, "d2": true, "u1b": false, "x2": false} {
		_, err := s.PublishedActivity(ctx, base+id)
		if kept != (err == nil) {
			t.Fatalf("activity %s after pruning: %v", id, err)
		}
	}

	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Publish(ctx, pub(fmt.Sprintf("%su3-%d", base, i), "Update", o3))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	db, err := sqlx.Connect("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stamps int
	if err := db.GetContext(ctx, &stamps, `SELECT count(DISTINCT created_at) FROM ap_activities WHERE object_id = $1`, o3); err != nil {
		t.Fatal(err)
	}
	if stamps != n {
		t.Fatalf("%d distinct stamps among %d concurrent publications of one object", stamps, n)
	}
}

// TestLocalReviewsOfMovieLeavesOutQuietOnes: a quiet review (imported without federation,
// marked here directly since imports are a separate change) is not among the movie's reviews
// federation announces.
func TestLocalReviewsOfMovieLeavesOutQuietOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := open(t)
	u, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "alice@example.org",
		PasswordHash: "hash", Role: domain.RoleStandard, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	ext := "tmdb:1"
	var logged []uuid.UUID
	for range 2 {
		r := domain.Review{ID: uuid.New(), UserID: u.ID, Rating: 4, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
		l, err := s.LogReview(ctx, r, domain.Movie{ExternalID: &ext, Title: "Movie 1", ReleaseYear: 1991}, nil)
		if err != nil {
			t.Fatal(err)
		}
		logged = append(logged, l.Review.ID)
	}
	db, err := sqlx.Connect("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE reviews SET quiet = true WHERE id = $1`, logged[0].String()); err != nil {
		t.Fatal(err)
	}
	r, _, err := s.FederatedReview(ctx, logged[1])
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.LocalReviewsOfMovie(ctx, r.MovieID)
	if err != nil || len(got) != 1 || got[0] != logged[1] {
		t.Fatalf("local reviews of the movie %v %v, want only the loud one %v", got, err, logged[1])
	}
}
