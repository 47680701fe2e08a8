package activitypub_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestInboxVerifiesSignatures: a correctly signed activity is accepted (202) and stored once;
// an unsigned, forged, tampered, replayed (old Date) or misattributed one is 401 and stores
// nothing.
func TestInboxVerifiesSignatures(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	bob := a.user("bob")
	r := newRemote(t)
	eve := r.addUser("eve")
	mallory := r.addUser("mallory")
	follow := func(actor string) map[string]any {
		return map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": actor + "/follows/" + uuid.NewString(),
			"type": "Follow", "actor": actor, "object": a.actor(bob)}
	}
	inbox := a.actor(bob) + "/inbox"
	stored := func() int { return a.count(`SELECT count(*) FROM inbox_activities`) }

	cases := []struct {
		name   string
		signer string
		body   map[string]any
		date   time.Time
		mutate func(*http.Request)
		want   int
	}{
		{name: "unsigned", signer: "eve", body: follow(eve), date: time.Now(),
			mutate: func(r *http.Request) { r.Header.Del("Signature") }, want: 401},
		{name: "bad signature", signer: "eve", body: follow(eve), date: time.Now(),
			mutate: func(r *http.Request) {
				// mallory's valid signature presented as eve's key
				r.Header.Set("Signature", replaceKeyID(r.Header.Get("Signature"), eve+"#main-key"))
			}, want: 401},
		{name: "wrong digest", signer: "eve", body: follow(eve), date: time.Now(),
			mutate: func(r *http.Request) { r.Header.Set("Digest", "SHA-256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=") }, want: 401},
		{name: "replayed old date", signer: "eve", body: follow(eve), date: time.Now().Add(-time.Hour), want: 401},
		{name: "key owner is not the actor", signer: "mallory", body: follow(eve), date: time.Now(), want: 401},
	}
	for _, c := range cases {
		signer := c.signer
		mutate := c.mutate
		if c.name == "bad signature" {
			signer = "mallory"
		}
		resp := r.signedPost(inbox, signer, c.body, c.date, mutate)
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
		if n := stored(); n != 0 {
			t.Fatalf("%s: %d activities stored, want none", c.name, n)
		}
	}
	_ = mallory

	good := follow(eve)
	if resp := r.signedPost(inbox, "eve", good, time.Now(), nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("signed follow: status %d, want 202", resp.StatusCode)
	}
	// The same activity again (a retry by the sender): 202, not stored twice.
	if resp := r.signedPost(a.base+"/inbox", "eve", good, time.Now(), nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("repeated follow: status %d, want 202", resp.StatusCode)
	}
	react := map[string]any{"id": eve + "/reacts/1", "type": "EmojiReact", "actor": eve, "object": a.actor(bob), "content": "🍿"}
	if resp := r.signedPost(inbox, "eve", react, time.Now(), nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("EmojiReact: status %d, want 202", resp.StatusCode)
	}
	if n := stored(); n != 1 {
		t.Errorf("%d activities stored, want 1 (the Follow once; an EmojiReact is not stored)", n)
	}
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'ActivityReceived'`); n != 1 {
		t.Errorf("%d ActivityReceived events, want 1", n)
	}
}
