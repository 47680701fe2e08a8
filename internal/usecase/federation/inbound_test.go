package federation_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestReceiveRules: the inbox refuses an activity without an id or type (400), one not by its
// signer (401), one whose id is on another host (400) and, on a user's inbox, one from an actor
// the user blocked (403); it accepts and does not store a type it does not handle, and stores a
// handled one once.
func TestReceiveRules(t *testing.T) {
	t.Parallel()
	const eve = "https://remote.example/users/eve"
	alice := uuid.New()
	cases := []struct {
		name      string
		in        federation.Inbound
		recipient *uuid.UUID
		blocked   bool
		want      domain.Kind // KindInternal: accepted
		stored    int
	}{
		{name: "no id", in: federation.Inbound{Type: "Follow", Actor: eve}, want: domain.KindInvalid},
		{name: "no type", in: federation.Inbound{ID: eve + "/1", Actor: eve}, want: domain.KindInvalid},
		{name: "not the signer's", in: federation.Inbound{ID: "https://remote.example/1", Type: "Follow", Actor: "https://remote.example/users/mallory"},
			want: domain.KindUnauthorized},
		{name: "id on another host", in: federation.Inbound{ID: "https://other.example/1", Type: "Follow", Actor: eve}, want: domain.KindInvalid},
		{name: "blocked by the recipient", in: federation.Inbound{ID: eve + "/1", Type: "Follow", Actor: eve}, recipient: &alice, blocked: true,
			want: domain.KindForbidden},
		{name: "unhandled type", in: federation.Inbound{ID: eve + "/1", Type: "Flag", Actor: eve}, recipient: &alice, blocked: true},
		{name: "handled", in: federation.Inbound{ID: eve + "/1", Type: "Follow", Actor: eve}, recipient: &alice, stored: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.store.userBlocks[alice.String()+" "+eve] = c.blocked
			err := b.svc.Receive(context.Background(), eve, c.recipient, c.in, []byte(`{}`))
			if c.want == domain.KindInternal && err != nil || c.want != domain.KindInternal && domain.KindOf(err) != c.want {
				t.Errorf("Receive = %v (kind %d), want kind %d", err, domain.KindOf(err), c.want)
			}
			if len(b.store.received) != c.stored {
				t.Errorf("%d activities stored, want %d", len(b.store.received), c.stored)
			}
		})
	}
}

// TestProcessFollows: a Follow of a local user adds the remote follower; a Follow of an unknown
// user, an Undo of a Follow we never recorded and anything from an instance blocked since it
// arrived do nothing; an Undo, Accept and Block act on the follow they name.
func TestProcessFollows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	me := base + "/users/" + alice.ID.String()
	bob := b.addActor("https://remote.example/users/bob", "")
	process := func(in federation.Inbound) {
		t.Helper()
		in.Actor = bob.URL
		if err := b.svc.Process(ctx, domain.ActivityReceived{ActivityID: bob.URL + "/a", ActorURL: bob.URL}, in); err != nil {
			t.Fatalf("%s: %v", in.Type, err)
		}
	}
	process(federation.Inbound{Type: "Follow", Object: me})
	process(federation.Inbound{Type: "Follow", Object: base + "/users/" + uuid.NewString()})
	process(federation.Inbound{Type: "Undo", Object: bob.URL + "/follows/unknown"})
	process(federation.Inbound{Type: "Undo", Inner: &domain.Relation{Type: "Follow", Actor: bob.URL, Object: me}})
	process(federation.Inbound{Type: "Accept", Inner: &domain.Relation{Type: "Follow", Actor: me, Object: bob.URL}})
	process(federation.Inbound{Type: "Block", Object: me})
	b.store.domainBlocks = []string{"remote.example"}
	process(federation.Inbound{Type: "Follow", Object: me})

	id := alice.ID.String()
	want := []string{"add " + id + " " + bob.URL, "remove " + id + " " + bob.URL, "accepted " + id + " " + bob.URL,
		"blocked-by " + id + " " + bob.URL}
	if !slices.Equal(b.store.followers, want) {
		t.Errorf("follow changes:\n%s\nwant:\n%s", strings.Join(b.store.followers, "\n"), strings.Join(want, "\n"))
	}
	err := b.svc.Process(ctx, domain.ActivityReceived{ActivityID: "x", ActorURL: bob.URL}, federation.Inbound{Type: "Follow", Actor: "https://elsewhere.example/users/m"})
	if !domain.IsPermanent(err) {
		t.Errorf("an activity whose actor is not its signer: %v, want a permanent error", err)
	}
}

// review is a review Note by actor as moviesdiary publishes it.
func review(actor, id string) *federation.Note {
	comment := "<b>good</b> &amp; long"
	return &federation.Note{ID: id, Type: "Note", AttributedTo: actor, Review: true, HasRating: true, Rating: 7,
		MovieTitle: "The <i>Matrix</i>", ReleaseYear: 1999, ExternalID: "tt0133093", Comment: &comment,
		WatchedAt: "2024-03-01T20:00:00Z"}
}

// TestProcessRemoteReviews: a review Note is saved keyed by its object id with the movie id
// instances agree on, as plain text, its rating capped; a Note on another host, attributed to
// someone else, or without a rating is ignored; a Delete of the actor removes all their
// reviews, of an object only that one.
func TestProcessRemoteReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	const bob = "https://remote.example/users/bob"
	e := domain.ActivityReceived{ActivityID: bob + "/a", ActorURL: bob}
	unrated := review(bob, bob+"/reviews/3")
	unrated.Rating = 0
	for _, note := range []*federation.Note{
		review(bob, bob+"/reviews/1"), review(bob, "https://other.example/reviews/2"),
		review("https://remote.example/users/mallory", bob+"/reviews/2"), unrated,
	} {
		if err := b.svc.Process(ctx, e, federation.Inbound{Type: "Create", Actor: bob, Note: note}); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.store.savedReviews) != 1 {
		t.Fatalf("%d reviews saved, want 1", len(b.store.savedReviews))
	}
	r := b.store.savedReviews[0]
	if r.APID != bob+"/reviews/1" || r.UserID != federation.RemoteUserID(bob) || r.Movie.ID != domain.MovieIDFor("tt0133093") ||
		r.Movie.Title != "The Matrix" || r.Rating != domain.MaxRating || r.Comment == nil || *r.Comment != "good & long" ||
		!r.Published.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)) { // no "published": dated by the clock
		t.Errorf("saved %+v", r)
	}
	for _, in := range []federation.Inbound{{Type: "Delete", Actor: bob, Object: bob}, {Type: "Delete", Actor: bob, Object: bob + "/reviews/1"}} {
		if err := b.svc.Process(ctx, e, in); err != nil {
			t.Fatal(err)
		}
	}
	if want := [][2]string{{bob, ""}, {bob, bob + "/reviews/1"}}; !slices.Equal(b.store.deleted, want) {
		t.Errorf("deletes %v, want %v", b.store.deleted, want)
	}
}

// TestProcessReactionsMovesAndBlocks: a Like and a boost of a local review are counted and
// their Undo (embedded, or by id) removes them; a Like of something not ours is dropped and
// counted as such; a Block drops the follows both ways; a Move is followed only when the
// target lists the old actor in alsoKnownAs; an Update of the actor refreshes it.
func TestProcessReactionsMovesAndBlocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.addUser("alice")
	r := b.addReview(alice)
	const bob, bob2, eve = "https://remote.example/users/bob", "https://new.example/users/bob", "https://remote.example/users/eve"
	b.addActor(bob, "")
	note := base + "/reviews/" + r.ID.String()
	process := func(in federation.Inbound) {
		t.Helper()
		in.Actor = cmpOr(in.Actor, bob)
		if err := b.svc.Process(ctx, domain.ActivityReceived{ActivityID: in.ID, ActorURL: in.Actor}, in); err != nil {
			t.Fatalf("%s: %v", in.Type, err)
		}
	}
	process(federation.Inbound{ID: bob + "/likes/1", Type: "Like", Object: note})
	process(federation.Inbound{ID: bob + "/boosts/1", Type: "Announce", Object: note})
	process(federation.Inbound{ID: eve + "/likes/1", Type: "Like", Actor: eve, Object: note})
	if c, _ := b.store.ReactionCounts(ctx, r.ID); c != (domain.ReactionCounts{Likes: 2, Boosts: 1}) {
		t.Fatalf("counts %+v, want 2 likes and 1 boost", c)
	}
	before := b.svc.Ignored()[federation.IgnoredNotOurs]
	process(federation.Inbound{ID: bob + "/likes/2", Type: "Like", Object: "https://elsewhere.example/notes/1"})
	if b.svc.Ignored()[federation.IgnoredNotOurs] != before+1 || len(b.store.reactions) != 3 {
		t.Errorf("a Like of another server's note was not dropped and counted")
	}
	process(federation.Inbound{ID: bob + "/likes/1/undo", Type: "Undo", Object: bob + "/likes/1",
		Inner: &domain.Relation{Type: "Like", ActivityID: bob + "/likes/1", Actor: bob, Object: note}})
	process(federation.Inbound{ID: bob + "/boosts/1/undo", Type: "Undo", Object: bob + "/boosts/1"}) // by id only
	if c, _ := b.store.ReactionCounts(ctx, r.ID); c != (domain.ReactionCounts{Likes: 1}) {
		t.Errorf("counts after the undos %+v, want eve's like only", c)
	}

	process(federation.Inbound{ID: bob + "/blocks/1", Type: "Block", Object: base + "/users/" + alice.ID.String()})
	process(federation.Inbound{ID: bob + "/moves/1", Type: "Move", Object: bob, Target: bob2})
	b.remote.actors[bob2] = domain.RemoteActor{URL: bob2, Inbox: bob2 + "/inbox", AlsoKnownAs: []string{bob}}
	process(federation.Inbound{ID: bob + "/moves/2", Type: "Move", Object: bob, Target: bob2})
	want := []string{"blocked-by " + alice.ID.String() + " " + bob, "move " + bob + " " + bob2}
	if !slices.Equal(b.store.followers, want) {
		t.Errorf("follow changes %q, want %q (the first Move, unconfirmed by alsoKnownAs, changes nothing)", b.store.followers, want)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
