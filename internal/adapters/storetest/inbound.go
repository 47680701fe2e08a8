package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// Inbound is what RunInbound needs of a store: what federation's inbox writes (remote follows
// and their answers, remote reviews, reactions, moves) and the reads that show them.
type Inbound interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error)
	Diary(ctx context.Context, f review.DiaryFilter, p domain.Page) (domain.Paged[review.Entry], error)
	FollowingFeed(ctx context.Context, owner uuid.UUID, p domain.Page) (domain.Paged[review.Entry], error)
	ReviewEntry(ctx context.Context, id uuid.UUID) (review.Entry, error)
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error)
	Relation(ctx context.Context, typ, actor, object string) (string, error)
	AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error
	RemoveRemoteFollower(ctx context.Context, user uuid.UUID, actorURL string) error
	FollowAnswered(ctx context.Context, user uuid.UUID, actorURL string, accepted bool) error
	SaveRemoteReview(ctx context.Context, r domain.RemoteReview) error
	DeleteRemoteReviews(ctx context.Context, actorURL, apID string) error
	SaveReaction(ctx context.Context, r domain.Reaction) error
	RemoveReaction(ctx context.Context, r domain.Reaction) error
	ReactionCounts(ctx context.Context, review uuid.UUID) (domain.ReactionCounts, error)
	BlockedByRemote(ctx context.Context, user uuid.UUID, actorURL string) error
	MoveFollows(ctx context.Context, oldActor, newActor string) error
}

// remoteReview is the review apID by the actor at actor of movie n, watched day days after t0.
func remoteReview(actor, apID string, n, rating, day int) domain.RemoteReview {
	return domain.RemoteReview{ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(apID)), APID: apID, ActorURL: actor,
		UserID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(actor)), Movie: tmdbMovie(n), Rating: rating,
		WatchedAt: t0.AddDate(0, 0, day), Published: t0}
}

// RunInbound runs the federation inbox cases against stores open makes.
func RunInbound(t *testing.T, open func(t *testing.T, faults *Faults) Inbound) {
	ctx := context.Background()
	const actor = "https://remote.example/users/rita"

	t.Run("RemoteReviewsInFeeds", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		feed := func() []uuid.UUID {
			t.Helper()
			p, err := s.FollowingFeed(ctx, alice.ID, page100)
			must(t, err)
			if p.Total != len(p.Items) {
				t.Fatalf("following feed: total %d, %d items", p.Total, len(p.Items))
			}
			return ids(p.Items)
		}
		r1 := remoteReview(actor, actor+"/reviews/1", 1, 4, 1)
		must(t, s.SaveRemoteReview(ctx, r1))
		must(t, s.Follow(ctx, alice.ID, domain.RemoteIdentity(actor)))
		if got := feed(); len(got) != 0 {
			t.Fatalf("a pending remote follow feeds %v", got)
		}
		before := events(t, s)
		must(t, s.FollowAnswered(ctx, alice.ID, actor, true))
		must(t, s.FollowAnswered(ctx, alice.ID, actor, true)) // answered already: nothing
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after the accept, want %d", n, before+1)
		}
		if got := feed(); !slices.Equal(got, []uuid.UUID{r1.ID}) {
			t.Fatalf("feed after the accept %v, want the stored remote review", got)
		}
		r2 := remoteReview(actor, actor+"/reviews/2", 2, 5, 2)
		must(t, s.SaveRemoteReview(ctx, r2))
		// The same object again is an update: a new date moves it.
		r1.WatchedAt, r1.Rating = t0.AddDate(0, 0, 5), 2
		must(t, s.SaveRemoteReview(ctx, r1))
		if got := feed(); !slices.Equal(got, []uuid.UUID{r1.ID, r2.ID}) {
			t.Fatalf("feed after a new and an updated remote review %v", got)
		}
		e, err := s.ReviewEntry(ctx, r1.ID)
		must(t, err)
		if e.Review.Rating != 2 || e.Review.RemoteActorURL == nil || *e.Review.RemoteActorURL != actor || e.UserDisplayName != actor {
			t.Fatalf("remote entry %+v", e)
		}
		if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != 2 {
			t.Fatalf("feed of everything: %d, want 2", n)
		}
		if n := (tester{t}).total(s.Diary(ctx, review.DiaryFilter{}, page100)); n != 0 {
			t.Fatalf("local diary: %d, want 0", n)
		}
		must(t, s.DeleteRemoteReviews(ctx, actor, r2.APID))
		if got := feed(); !slices.Equal(got, []uuid.UUID{r1.ID}) {
			t.Fatalf("feed after deleting one remote review %v", got)
		}
		if _, err := s.MovieByID(ctx, e.Movie.ID); err != nil {
			t.Fatalf("the movie of a remaining remote review: %v", err)
		}
		// The actor is deleted: its reviews, its movies, the follows.
		must(t, s.DeleteRemoteReviews(ctx, actor, ""))
		if got := feed(); len(got) != 0 {
			t.Fatalf("feed after the actor's deletion %v", got)
		}
		if n := (tester{t}).total(s.Feed(ctx, review.SortDateDesc, page100)); n != 0 {
			t.Fatalf("feed of everything after the actor's deletion: %d", n)
		}
		if _, err := s.MovieByID(ctx, e.Movie.ID); err == nil {
			t.Fatal("the orphan movie of a deleted actor's review stays")
		}
		if following, err := s.Following(ctx, alice.ID); err != nil || len(following) != 0 {
			t.Fatalf("following after the actor's deletion: %+v %v", following, err)
		}
	})

	t.Run("RemoteFollowersAndAnswers", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		aliceActor := "https://local.example/users/alice"
		must(t, s.AddRemoteFollower(ctx, alice.ID, actor, actor+"#follow-1", aliceActor))
		must(t, s.AddRemoteFollower(ctx, alice.ID, actor, actor+"#follow-2", aliceActor))
		pending, err := s.Followers(ctx, alice.ID, true)
		must(t, err)
		if len(pending) != 1 || pending[0].Identity != domain.RemoteIdentity(actor) {
			t.Fatalf("pending followers %+v", pending)
		}
		if id, err := s.Relation(ctx, "Follow", actor, aliceActor); err != nil || id != actor+"#follow-2" {
			t.Fatalf("relation %q %v, want the latest Follow's id", id, err)
		}
		must(t, s.RemoveRemoteFollower(ctx, alice.ID, actor))
		must(t, s.RemoveRemoteFollower(ctx, alice.ID, actor))
		if pending, _ := s.Followers(ctx, alice.ID, true); len(pending) != 0 {
			t.Fatalf("pending after the undo %+v", pending)
		}
		must(t, s.Block(ctx, bob.ID, domain.RemoteIdentity(actor)))
		wantKind(t, s.AddRemoteFollower(ctx, bob.ID, actor, actor+"#follow-3", "https://local.example/users/bob"),
			domain.KindForbidden, "")

		// A rejection deletes the follow; a block by the remote actor drops both ways.
		must(t, s.Follow(ctx, alice.ID, domain.RemoteIdentity(actor)))
		before := events(t, s)
		must(t, s.FollowAnswered(ctx, alice.ID, actor, false))
		if n := events(t, s); n != before {
			t.Fatalf("a rejection enqueued %d events", n-before)
		}
		must(t, s.Follow(ctx, alice.ID, domain.RemoteIdentity(actor)))
		must(t, s.FollowAnswered(ctx, alice.ID, actor, true))
		must(t, s.AddRemoteFollower(ctx, alice.ID, actor, actor+"#follow-4", aliceActor))
		must(t, s.BlockedByRemote(ctx, alice.ID, actor))
		following, err := s.Following(ctx, alice.ID)
		must(t, err)
		followers, err := s.Followers(ctx, alice.ID, true)
		must(t, err)
		if len(following) != 0 || len(followers) != 0 {
			t.Fatalf("after a remote block: following %+v, followers %+v", following, followers)
		}
	})

	t.Run("MoveFollows", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		const newActor = "https://elsewhere.example/users/rita"
		for _, u := range []uuid.UUID{alice.ID, bob.ID} {
			must(t, s.Follow(ctx, u, domain.RemoteIdentity(actor)))
			must(t, s.FollowAnswered(ctx, u, actor, true))
		}
		must(t, s.SaveRemoteReview(ctx, remoteReview(actor, actor+"/reviews/1", 1, 4, 1)))
		must(t, s.Block(ctx, bob.ID, domain.RemoteIdentity(newActor)))
		before := events(t, s)
		must(t, s.MoveFollows(ctx, actor, newActor))
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after the move, want one FollowRequested (bob blocked the new actor)", n-before)
		}
		for _, u := range []uuid.UUID{alice.ID, bob.ID} {
			if following, err := s.Following(ctx, u); err != nil || len(following) != 0 {
				t.Fatalf("accepted follows after the move: %+v %v", following, err)
			}
			if p, err := s.FollowingFeed(ctx, u, page100); err != nil || p.Total != 0 {
				t.Fatalf("following feed after the move: %d %v", p.Total, err)
			}
		}
		must(t, s.FollowAnswered(ctx, alice.ID, newActor, true))
		following, err := s.Following(ctx, alice.ID)
		must(t, err)
		if len(following) != 1 || following[0].Identity != domain.RemoteIdentity(newActor) {
			t.Fatalf("alice follows %+v, want the new actor", following)
		}
	})

	t.Run("Reactions", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		mine := logReview(t, s, newReview(alice.ID, 4, 1), tmdbMovie(1)).Review
		theirs := remoteReview(actor, actor+"/reviews/1", 2, 4, 1)
		must(t, s.SaveRemoteReview(ctx, theirs))
		other := "https://other.example/users/olga"
		for _, r := range []domain.Reaction{
			{ReviewID: mine.ID, Kind: "Like", ActorURL: actor, ActivityID: actor + "#like-1"},
			{ReviewID: mine.ID, Kind: "Like", ActorURL: actor, ActivityID: actor + "#like-2"},
			{ReviewID: mine.ID, Kind: "Like", ActorURL: other, ActivityID: other + "#like"},
			{ReviewID: mine.ID, Kind: "Announce", ActorURL: other, ActivityID: other + "#boost"},
			{ReviewID: theirs.ID, Kind: "Like", ActorURL: other, ActivityID: other + "#like-remote"},
			{ReviewID: uuid.New(), Kind: "Like", ActorURL: other, ActivityID: other + "#like-gone"},
		} {
			must(t, s.SaveReaction(ctx, r))
		}
		counts := func(id uuid.UUID) domain.ReactionCounts {
			t.Helper()
			c, err := s.ReactionCounts(ctx, id)
			must(t, err)
			return c
		}
		if c := counts(mine.ID); c.Likes != 2 || c.Boosts != 1 {
			t.Fatalf("reactions %+v, want 2 likes, 1 boost", c)
		}
		if c := counts(theirs.ID); c.Likes != 0 || c.Boosts != 0 {
			t.Fatalf("reactions to a remote review %+v, want none", c)
		}
		must(t, s.RemoveReaction(ctx, domain.Reaction{ActorURL: actor, ActivityID: actor + "#like-2"}))
		must(t, s.RemoveReaction(ctx, domain.Reaction{ReviewID: mine.ID, Kind: "Announce", ActorURL: other}))
		if c := counts(mine.ID); c.Likes != 1 || c.Boosts != 0 {
			t.Fatalf("reactions after two removals %+v, want 1 like", c)
		}
		// The worker runs inbox activities concurrently, so an Undo can be processed before the
		// Like it undoes (and a server may send the Like again): an undone reaction is not
		// recorded; a new one, with an id of its own, is.
		must(t, s.RemoveReaction(ctx, domain.Reaction{ActorURL: other, ActivityID: other + "#boost-2"}))
		must(t, s.SaveReaction(ctx, domain.Reaction{ReviewID: mine.ID, Kind: "Announce", ActorURL: other, ActivityID: other + "#boost-2"}))
		must(t, s.SaveReaction(ctx, domain.Reaction{ReviewID: mine.ID, Kind: "Like", ActorURL: actor, ActivityID: actor + "#like-2"}))
		if c := counts(mine.ID); c.Likes != 1 || c.Boosts != 0 {
			t.Fatalf("reactions after undone ones arrived %+v, want 1 like", c)
		}
		must(t, s.SaveReaction(ctx, domain.Reaction{ReviewID: mine.ID, Kind: "Announce", ActorURL: other, ActivityID: other + "#boost-3"}))
		if c := counts(mine.ID); c.Boosts != 1 {
			t.Fatalf("a new boost after an undone one: %+v, want 1 boost", c)
		}
		must(t, s.DeleteRemoteReviews(ctx, other, ""))
		if c := counts(mine.ID); c.Likes != 0 {
			t.Fatalf("reactions of a deleted actor %+v", c)
		}
	})
}
