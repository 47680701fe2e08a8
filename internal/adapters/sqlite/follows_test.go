package sqlite

import (
	"context"
	"path/filepath"
	"testing"

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
