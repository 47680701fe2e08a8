package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// TestMigrationLabelsFollowAcceptedDirection: migration 0110 labels the FollowAccepted rows
// written before the event had a direction: a remote actor's answer to a local user's follow
// (the user follows it, it does not follow the user) is outgoing; a local user's acceptance,
// and a mutual follow that cannot be told apart, are incoming. The labelled rows decode.
func TestMigrationLabelsFollowAcceptedDirection(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "legacy.db"))
	ctx := context.Background()
	migrateTo(t, s, 105)
	owner := uuid.MustParse("11111111-1111-4111-8111-111111111111").String()
	const out, in, mutual = "https://r.example/users/out", "https://r.example/users/in", "https://r.example/users/both"
	_, err := s.write.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status) VALUES
		('local', ?1, 'remote', ?2, 'accepted'),
		('remote', ?3, 'local', ?1, 'accepted'),
		('local', ?1, 'remote', ?4, 'accepted'), ('remote', ?4, 'local', ?1, 'accepted')`, owner, out, in, mutual)
	if err != nil {
		t.Fatal(err)
	}
	for _, actor := range []string{out, in, mutual} {
		if _, err := s.write.ExecContext(ctx, `INSERT INTO event_queue (event_id, event_type, payload) VALUES (?, 'FollowAccepted',
			json_object('type', 'FollowAccepted', 'data', json_object('owner_id', ?, 'requester_kind', 'remote', 'requester_id', ?)))`,
			uuid.NewString(), owner, actor); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT payload FROM event_queue WHERE event_type = 'FollowAccepted' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		e, err := domain.Decode("FollowAccepted", payload)
		if err != nil {
			t.Fatalf("a migrated row does not decode: %v (%s)", err, payload)
		}
		fa := e.(domain.FollowAccepted)
		got[fa.Requester.ID] = fa.Direction
	}
	want := map[string]string{out: domain.FollowOutgoing, in: domain.FollowIncoming, mutual: domain.FollowIncoming}
	for actor, dir := range want {
		if got[actor] != dir {
			t.Errorf("%s: direction %q, want %q", actor, got[actor], dir)
		}
	}
}

// TestRemoteSocialWrites: reactions are kept once per (review, kind, actor), removed by activity
// id or by kind and review, and go with their review; a remote Block drops the follows both
// ways; a Move turns follows of the old actor into pending follows of the new one with a
// FollowRequested each; a Reject removes even an accepted follow.
func TestRemoteSocialWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	alice, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "a@x.test", PasswordHash: "x", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	ext := "tt0133093"
	rv := domain.Review{ID: uuid.New(), UserID: alice.ID, Rating: 4, WatchedAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if _, err := s.LogReview(ctx, rv, domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix", ReleaseYear: 1999}, nil); err != nil {
		t.Fatal(err)
	}
	const bob, eve, bob2 = "https://r.example/users/bob", "https://r.example/users/eve", "https://n.example/users/bob"
	for _, r := range []domain.Reaction{
		{ReviewID: rv.ID, Kind: "Like", ActorURL: bob, ActivityID: bob + "/l/1"},
		{ReviewID: rv.ID, Kind: "Like", ActorURL: bob, ActivityID: bob + "/l/2"}, // again: one like
		{ReviewID: rv.ID, Kind: "Announce", ActorURL: bob, ActivityID: bob + "/b/1"},
		{ReviewID: rv.ID, Kind: "Like", ActorURL: eve, ActivityID: eve + "/l/1"},
		{ReviewID: uuid.New(), Kind: "Like", ActorURL: eve, ActivityID: eve + "/l/2"}, // no such review
	} {
		if err := s.SaveReaction(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.ReactionCounts(ctx, rv.ID); err != nil || c != (domain.ReactionCounts{Likes: 2, Boosts: 1}) {
		t.Fatalf("counts %+v (%v), want 2 likes, 1 boost", c, err)
	}
	if err := s.RemoveReaction(ctx, domain.Reaction{ActorURL: bob, ActivityID: bob + "/l/2"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveReaction(ctx, domain.Reaction{ActorURL: bob, Kind: "Announce", ReviewID: rv.ID}); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.ReactionCounts(ctx, rv.ID); c != (domain.ReactionCounts{Likes: 1}) {
		t.Errorf("counts after removals %+v, want eve's like", c)
	}

	if _, err := s.write.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status) VALUES
		('remote', ?2, 'local', ?1, 'accepted'), ('local', ?1, 'remote', ?2, 'accepted'), ('local', ?1, 'remote', ?3, 'accepted')`,
		alice.ID.String(), eve, bob); err != nil {
		t.Fatal(err)
	}
	if err := s.BlockedByRemote(ctx, alice.ID, eve); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM follows WHERE follower_id = ? OR target_id = ?`, eve, eve); n != 0 {
		t.Errorf("%d follows with the blocker left", n)
	}
	if err := s.MoveFollows(ctx, bob, bob2); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM follows WHERE target_id = ? AND status = 'pending'`, bob2); n != 1 ||
		count(t, s, `SELECT count(*) FROM follows WHERE target_id = ?`, bob) != 0 {
		t.Errorf("after the move: %d pending follows of the new actor, want 1, and none of the old", n)
	}
	if n := count(t, s, `SELECT count(*) FROM event_queue WHERE event_type = 'FollowRequested' AND payload LIKE ?`, "%n.example%"); n != 1 {
		t.Errorf("%d FollowRequested for the new actor, want 1", n)
	}
	if _, err := s.write.ExecContext(ctx, `UPDATE follows SET status = 'accepted' WHERE target_id = ?`, bob2); err != nil {
		t.Fatal(err)
	}
	if err := s.FollowAnswered(ctx, alice.ID, bob2, false); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM follows WHERE target_id = ?`, bob2); n != 0 {
		t.Errorf("a Reject left the accepted follow")
	}
	if _, err := s.write.ExecContext(ctx, `DELETE FROM reviews WHERE id = ?`, rv.ID.String()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM review_reactions`); n != 0 {
		t.Errorf("%d reactions outlived their review", n)
	}
}
