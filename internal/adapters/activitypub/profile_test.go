package activitypub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/domain"
)

// TestProfileChangesFederate: the profile API's UserUpdated reaches a Mastodon-shaped follower
// as an Update of the Person with the new profile, and UserAccountMoved as a Move of the actor
// to its new account, both at the follower's shared inbox and accepted by its signer look-up.
func TestProfileChangesFederate(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	a.startWorker()
	alice := a.user("alice")
	r := newFedi(t, flavors[0])
	bob := r.addUser("bob")
	a.acceptRemoteFollower(alice, bob)
	if _, err := a.db.Exec(`UPDATE users SET display_name = 'Alice Liddell', bio = 'Films' WHERE id = ?`, alice.ID.String()); err != nil {
		t.Fatal(err)
	}
	var outbound func(context.Context, string, domain.Event) error
	for _, h := range a.fed.Handlers() {
		if h.Name == activitypub.OutboundHandler {
			outbound = func(ctx context.Context, id string, e domain.Event) error { return h.Handle(ctx, envelope(id, e)) }
		}
	}
	ctx := context.Background()
	if err := outbound(ctx, "11111111-1111-4111-8111-111111111111", domain.UserUpdated{UserID: alice.ID}); err != nil {
		t.Fatal(err)
	}
	const moved = "https://elsewhere.example/users/alice"
	if err := outbound(ctx, "22222222-2222-4222-8222-222222222222", domain.UserAccountMoved{UserID: alice.ID, NewActorURL: moved}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "bob gets the Update and the Move", func() bool { return len(r.postsOf("Update")) == 1 && len(r.postsOf("Move")) == 1 })
	up := r.postsOf("Update")[0]
	person, _ := up.Activity["object"].(map[string]any)
	if up.Inbox != "/inbox" || person["type"] != "Person" || person["id"] != a.actor(alice) || person["name"] != "Alice Liddell" ||
		person["summary"] != "<p>Films</p>" || person["publicKey"] == nil {
		t.Errorf("Update at %s: %v", up.Inbox, person)
	}
	if mv := r.postsOf("Move")[0].Activity; mv["object"] != a.actor(alice) || mv["target"] != moved || mv["actor"] != a.actor(alice) {
		t.Errorf("Move: %v", mv)
	}
	if f := r.failures(); len(f) != 0 {
		t.Errorf("refusals: %q", f)
	}
}

// TestIgnoredCollector: the dropped inbound activities are a Prometheus counter by reason.
func TestIgnoredCollector(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newRemote(t)
	eve := r.addUser("eve")
	react := map[string]any{"id": eve + "/reacts/1", "type": "EmojiReact", "actor": eve, "object": a.actor(alice)}
	if resp := r.signedPost(a.actor(alice)+"/inbox", "eve", react, time.Now(), nil); resp.StatusCode != 202 {
		t.Fatalf("EmojiReact: %d", resp.StatusCode)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(a.fed.Collector())
	want := `# HELP moviesdiary_federation_ignored_total Inbound activities acknowledged and dropped, by reason: unhandled type (at the inbox, in the server); not a review, invalid review, not about us, blocked instance (in the worker).
# TYPE moviesdiary_federation_ignored_total counter
moviesdiary_federation_ignored_total{reason="unhandled type"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
