package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// followingTruth is every follower's feed computed from follows and reviews themselves, newest
// viewing first: what following_feed must hold.
const followingTruth = `SELECT f.follower_id || ' ' || r.id FROM follows f JOIN reviews r
	ON (f.target_kind = 'local' AND r.user_id = f.target_id AND r.remote_actor_url IS NULL)
	OR (f.target_kind = 'remote' AND r.remote_actor_url = f.target_id)
	WHERE f.follower_kind = 'local' AND f.status = 'accepted' ORDER BY f.follower_id, r.watched_at DESC, r.id DESC`

// TestFollowingFeedKeptExact: migration 0202 backfills the feeds of follows and reviews that
// existed before it, and every write of a review (insert, remote upsert, date change, delete,
// cascade) and of a follow (request, accept, remote answer, unfollow, block, move, user
// deletion) keeps each follower's feed and its count equal to a recomputation; the use case
// pages it newest first.
func TestFollowingFeedKeptExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "following.db"))
	migrateTo(t, s, 201)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.write.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	users := make([]string, 4)
	for i := range users {
		users[i] = uuid.NewString()
		exec(`INSERT INTO users (id, username, email, password_hash) VALUES (?, ?, ?, 'x')`, users[i], fmt.Sprint("u", i), fmt.Sprint("u", i, "@example.test"))
	}
	ann, bob, cid, dee := users[0], users[1], users[2], users[3]
	movie := uuid.NewString()
	exec(`INSERT INTO movies (id, title) VALUES (?, 'Heat')`, movie)
	remote := "https://remote.example/users/zed"
	day := 0
	addReview := func(user string, actor any) string {
		t.Helper()
		id := uuid.NewString()
		day++
		exec(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url) VALUES (?, ?, ?, 3, ?, ?)`,
			id, user, movie, fmt.Sprintf("2024-01-%02dT00:00:00Z", day), actor)
		return id
	}
	follow := func(follower, kind, target, status string) {
		t.Helper()
		exec(`INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status) VALUES ('local', ?, ?, ?, ?)`,
			follower, kind, target, status)
	}
	remoteUser := uuid.NewSHA1(uuid.NameSpaceURL, []byte(remote)).String()
	check := func(when string) {
		t.Helper()
		var want, got []string
		if err := s.read.SelectContext(ctx, &want, followingTruth); err != nil {
			t.Fatal(err)
		}
		if err := s.read.SelectContext(ctx, &got, `SELECT owner_id || ' ' || review_id FROM following_feed
			ORDER BY owner_id, watched_at DESC, review_id DESC`); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want, got) {
			t.Errorf("%s: feed rows\n%v\nwant\n%v", when, got, want)
		}
		for _, u := range users {
			var n int
			err := s.read.GetContext(ctx, &n, `SELECT COALESCE(sum(n), 0) FROM review_counts WHERE scope = 'following' AND key = ?`, u)
			c := 0
			for _, w := range want {
				if w[:36] == u {
					c++
				}
			}
			if err != nil || n != c {
				t.Errorf("%s: count of %s is %d (%v), want %d", when, u, n, err, c)
			}
		}
	}

	// Before the migration: ann follows bob (accepted) and cid (pending).
	addReview(bob, nil)
	addReview(cid, nil)
	follow(ann, "local", bob, "accepted")
	follow(ann, "local", cid, "pending")
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	check("after the backfill")

	addReview(bob, nil)
	addReview(ann, nil) // her own review is not in her feed
	check("after new reviews")
	exec(`UPDATE follows SET status = 'accepted' WHERE follower_id = ? AND target_id = ?`, ann, cid)
	check("after a follow was accepted")
	follow(dee, "remote", remote, "pending")
	follow(ann, "remote", remote, "accepted")
	r1 := addReview(remoteUser, remote)
	addReview(remoteUser, remote)
	check("after remote reviews")
	exec(`UPDATE follows SET status = 'accepted' WHERE follower_id = ? AND target_kind = 'remote'`, dee)
	check("after a remote actor answered")
	// A remote upsert moving the date, a local edit of the date, a local delete.
	exec(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url) VALUES (?, ?, ?, 5, '2023-06-01T00:00:00Z', ?)
		ON CONFLICT (id) DO UPDATE SET watched_at = excluded.watched_at, rating = excluded.rating`, r1, remoteUser, movie, remote)
	b2 := addReview(bob, nil)
	exec(`UPDATE reviews SET watched_at = '2022-01-01T00:00:00Z' WHERE id = ?`, b2)
	exec(`UPDATE reviews SET comment = 'no move' WHERE id = ?`, b2)
	check("after date changes")
	exec(`DELETE FROM reviews WHERE id = ?`, b2)
	check("after a delete")
	exec(`DELETE FROM follows WHERE follower_id = ? AND target_id = ?`, ann, bob)
	check("after an unfollow")
	exec(`UPDATE follows SET target_id = 'https://remote.example/users/moved', status = 'pending' WHERE target_id = ?`, remote)
	check("after a move")
	follow(bob, "local", cid, "accepted")
	exec(`DELETE FROM users WHERE id = ?`, cid) // the users trigger deletes cid's reviews
	check("after a followed user was deleted")
	follow(bob, "local", ann, "accepted")
	exec(`DELETE FROM movies WHERE id = ?`, movie)
	check("after the reviews cascaded away with their movie")

	// The use case pages the feed newest first with its total.
	movie = uuid.NewString()
	exec(`INSERT INTO movies (id, title) VALUES (?, 'Ran')`, movie)
	var want []string
	for range 5 {
		want = append([]string{addReview(ann, nil)}, want...)
	}
	addReview(dee, nil) // bob does not follow dee
	svc := review.NewService(nil, s, nil)
	bobID := uuid.MustParse(bob)
	var got []string
	for off := 0; off < 6; off += 2 {
		p, err := svc.Following(ctx, bobID, domain.Page{Limit: 2, Offset: off})
		if err != nil || p.Total != 5 {
			t.Fatalf("page at %d: total %d, %v", off, p.Total, err)
		}
		for _, e := range p.Items {
			got = append(got, e.Review.ID.String())
			if e.Movie.Title != "Ran" || e.UserDisplayName != "u0" {
				t.Errorf("entry %+v lacks its movie or author", e)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
	if p, err := svc.Following(ctx, uuid.New(), domain.Page{Limit: 2}); err != nil || p.Total != 0 || len(p.Items) != 0 {
		t.Errorf("feed of someone following nobody: %+v, %v", p, err)
	}
}
