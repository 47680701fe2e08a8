package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Federation is what RunFederation needs of a store: the federation use case's and the
// ActivityPub adapter's reads and writes (cached actors, publications and their deliveries,
// received ids, collections, pruning) and the writes that set up their rows.
type Federation interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error
	SaveRemoteReview(ctx context.Context, r domain.RemoteReview) error
	Relation(ctx context.Context, typ, actor, object string) (string, error)

	SaveRemoteActor(ctx context.Context, a domain.RemoteActor) error
	RemoteActor(ctx context.Context, url string) (domain.RemoteActor, error)
	RemoteActorByKeyID(ctx context.Context, keyID string) (domain.RemoteActor, error)
	HasBlocked(ctx context.Context, user uuid.UUID, actorURL string) (bool, error)
	ReceiveActivity(ctx context.Context, e domain.ActivityReceived) (bool, error)
	Publish(ctx context.Context, p domain.Publication) error
	RelationByID(ctx context.Context, activityID string) (domain.Relation, error)
	PublishedActivity(ctx context.Context, id string) ([]byte, error)
	LatestActivity(ctx context.Context, objectID string) ([]byte, error)
	ActivityIDs(ctx context.Context, typ string, objectIDs []string) (map[string]string, error)
	FollowerInboxes(ctx context.Context, user uuid.UUID) ([]string, error)
	FollowStatus(ctx context.Context, follower, target domain.SocialIdentity) (string, error)
	FollowCollection(ctx context.Context, user uuid.UUID, followers bool, offset, limit int) ([]domain.SocialIdentity, int, error)
	FederatedReview(ctx context.Context, id uuid.UUID) (domain.Review, domain.Movie, error)
	LocalReviewsOfMovie(ctx context.Context, movie uuid.UUID) ([]uuid.UUID, error)
	OutboxReviews(ctx context.Context, user uuid.UUID, offset, limit int) ([]domain.Review, []domain.Movie, int, error)
	NodeStats(ctx context.Context) (users, reviews int, err error)
	PruneFederation(ctx context.Context, now time.Time, inboxKeep, activityKeep time.Duration) (inbox, activities int64, err error)
	ActorProfile(ctx context.Context, user uuid.UUID) (domain.ActorProfile, error)
}

// publication is an activity of type typ by actor about object (its id "" for none), with a
// delivery to each of inboxes whose outbox id derives from the activity id and the inbox, as the
// fan-out derives them.
func publication(id, typ string, actor uuid.UUID, object string, inboxes ...string) domain.Publication {
	doc, _ := json.Marshal(map[string]string{"id": id, "type": typ, "object": object})
	p := domain.Publication{ActivityID: id, Type: typ, ActorID: actor, ObjectID: object, Activity: doc}
	for _, inbox := range inboxes {
		p.Deliveries = append(p.Deliveries, domain.Delivery{
			EventID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(id+" "+inbox)),
			Event:   domain.FederationDeliveryRequested{InboxURL: inbox, ActivityJSON: doc, SigningActorID: actor},
		})
	}
	return p
}

// received is an inbound activity with id id from actor.
func received(id, actor string) domain.ActivityReceived {
	doc, _ := json.Marshal(map[string]string{"id": id, "type": "Like", "actor": actor})
	return domain.ActivityReceived{ActivityID: id, ActorURL: actor, Activity: doc}
}

// activityType is the "type" of a stored activity document.
// It fails the test on the read's error.
func (c tester) activityType(doc []byte, err error) string {
	c.Helper()
	must(c.T, err)
	var a struct {
		Type string `json:"type"`
	}
	must(c.T, json.Unmarshal(doc, &a))
	return a.Type
}

// RunFederation runs the federation store cases against stores open makes.
func RunFederation(t *testing.T, open func(t *testing.T, faults *Faults) Federation) {
	ctx := context.Background()
	const actor = "https://remote.example/users/rita"

	t.Run("RemoteActors", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		_, err := s.RemoteActor(ctx, actor)
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.RemoteActorByKeyID(ctx, actor+"#main-key")
		wantKind(t, err, domain.KindNotFound, "")
		a := domain.RemoteActor{URL: actor, Inbox: actor + "/inbox", SharedInbox: "https://remote.example/inbox",
			Outbox: actor + "/outbox", Handle: "rita@remote.example", DisplayName: "Rita", KeyID: actor + "#main-key",
			PublicKeyPEM: "PEM-1", FetchedAt: t0}
		must(t, s.SaveRemoteActor(ctx, a))
		got, err := s.RemoteActor(ctx, actor)
		must(t, err)
		if !reflect.DeepEqual(got, a) {
			t.Fatalf("remote actor %+v, want %+v", got, a)
		}
		// A refresh without a handle keeps the known one; the optional columns may empty.
		b := domain.RemoteActor{URL: actor, Inbox: actor + "/inbox2", KeyID: actor + "#key2", PublicKeyPEM: "PEM-2",
			FetchedAt: t0.Add(time.Hour)}
		must(t, s.SaveRemoteActor(ctx, b))
		got, err = s.RemoteActorByKeyID(ctx, actor+"#key2")
		must(t, err)
		want := b
		want.Handle = a.Handle
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("refreshed actor %+v, want %+v", got, want)
		}
		if _, err := s.RemoteActorByKeyID(ctx, actor+"#main-key"); domain.KindOf(err) != domain.KindNotFound {
			t.Fatalf("the replaced key still finds the actor: %v", err)
		}
	})

	t.Run("ReceiveOnce", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		before := events(t, s)
		fresh, err := s.ReceiveActivity(ctx, received(actor+"/likes/1", actor))
		if err != nil || !fresh {
			t.Fatalf("first receipt: fresh %v, %v", fresh, err)
		}
		fresh, err = s.ReceiveActivity(ctx, received(actor+"/likes/1", actor))
		if err != nil || fresh {
			t.Fatalf("repeated receipt: fresh %v, %v", fresh, err)
		}
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after a receipt and its repeat, want %d", n, before+1)
		}
		// Concurrent receipts of one new id: exactly one is fresh and enqueues.
		const n = 8
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			freshes []bool
			errs    []error
		)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := s.ReceiveActivity(ctx, received(actor+"/likes/2", actor))
				mu.Lock()
				defer mu.Unlock()
				freshes, errs = append(freshes, f), append(errs, err)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if c := len(slices.DeleteFunc(freshes, func(f bool) bool { return !f })); c != 1 {
			t.Fatalf("%d of %d concurrent receipts were fresh, want 1", c, n)
		}
		if got := events(t, s); got != before+2 {
			t.Fatalf("%d events after concurrent receipts, want %d", got, before+2)
		}
	})

	t.Run("ReceiveRollsBack", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		faults.Set(true)
		if _, err := s.ReceiveActivity(ctx, received(actor+"/likes/1", actor)); !errors.Is(err, ErrInjected) {
			t.Fatalf("receipt with a failing enqueue: %v", err)
		}
		faults.Set(false)
		if n := events(t, s); n != 0 {
			t.Fatalf("%d events after a failed receipt", n)
		}
		fresh, err := s.ReceiveActivity(ctx, received(actor+"/likes/1", actor))
		if err != nil || !fresh {
			t.Fatalf("the receipt after a rolled-back one is not fresh: %v %v", fresh, err)
		}
	})

	t.Run("PublishOnce", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		_, err := s.PublishedActivity(ctx, "https://local.example/activities/none")
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.RelationByID(ctx, "https://local.example/activities/none")
		wantKind(t, err, domain.KindNotFound, "")
		_, err = s.LatestActivity(ctx, "https://local.example/reviews/none")
		wantKind(t, err, domain.KindNotFound, "")

		follow := publication("https://local.example/activities/f1", "Follow", alice.ID, actor, actor+"/inbox")
		follow.Relation = &domain.Relation{Type: "Follow", Actor: "https://local.example/users/alice", Object: actor,
			ActivityID: follow.ActivityID}
		before := events(t, s)
		must(t, s.Publish(ctx, follow))
		must(t, s.Publish(ctx, follow))
		if n := events(t, s); n != before+1 {
			t.Fatalf("%d events after a publication and its repeat, want %d", n, before+1)
		}
		if typ := (tester{t}).activityType(s.PublishedActivity(ctx, follow.ActivityID)); typ != "Follow" {
			t.Fatalf("published activity type %q", typ)
		}
		r, err := s.RelationByID(ctx, follow.ActivityID)
		if err != nil || r != *follow.Relation {
			t.Fatalf("relation by id %+v %v", r, err)
		}
		if id, err := s.Relation(ctx, "Follow", follow.Relation.Actor, actor); err != nil || id != follow.ActivityID {
			t.Fatalf("relation %q %v", id, err)
		}

		// Concurrent publications of one activity with three deliveries insert each once.
		create := publication("https://local.example/activities/c1", "Create", alice.ID, "https://local.example/reviews/1",
			"https://a.example/inbox", "https://b.example/inbox", "https://c.example/inbox")
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Publish(ctx, create)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if got := events(t, s); got != before+4 {
			t.Fatalf("%d events after concurrent publications, want %d", got, before+4)
		}
	})

	t.Run("PublishRollsBack", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		follow := publication("https://local.example/activities/f1", "Follow", alice.ID, actor, actor+"/inbox")
		follow.Relation = &domain.Relation{Type: "Follow", Actor: "https://local.example/users/alice", Object: actor,
			ActivityID: follow.ActivityID}
		faults.Set(true)
		if err := s.Publish(ctx, follow); !errors.Is(err, ErrInjected) {
			t.Fatalf("publication with a failing enqueue: %v", err)
		}
		faults.Set(false)
		if _, err := s.PublishedActivity(ctx, follow.ActivityID); domain.KindOf(err) != domain.KindNotFound {
			t.Fatalf("a rolled-back publication's activity: %v", err)
		}
		if id, err := s.Relation(ctx, "Follow", follow.Relation.Actor, actor); err != nil || id != "" {
			t.Fatalf("a rolled-back publication's relation: %q %v", id, err)
		}
		if n := events(t, s); n != 0 {
			t.Fatalf("%d events after a rolled-back publication", n)
		}
	})

	t.Run("LatestActivities", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		o1, o2, o3 := "https://local.example/reviews/1", "https://local.example/reviews/2", "https://local.example/reviews/3"
		// Published in one burst: activities of one object within a millisecond keep their order
		// (which is not their ids' order).
		for _, p := range []domain.Publication{
			publication("https://local.example/activities/c1", "Create", alice.ID, o1),
			publication("https://local.example/activities/u1b", "Update", alice.ID, o1),
			publication("https://local.example/activities/u1a", "Update", alice.ID, o1),
			publication("https://local.example/activities/x2", "Create", alice.ID, o2),
			publication("https://local.example/activities/d2", "Delete", alice.ID, o2),
		} {
			must(t, s.Publish(ctx, p))
		}
		latest, err := s.LatestActivity(ctx, o1)
		must(t, err)
		if typ := (tester{t}).activityType(latest, nil); typ != "Update" {
			t.Fatalf("latest activity of o1 %s", latest)
		}
		var doc struct {
			ID string `json:"id"`
		}
		must(t, json.Unmarshal(latest, &doc))
		if doc.ID != "https://local.example/activities/u1a" {
			t.Fatalf("latest activity of o1 is %s, want the second Update", doc.ID)
		}
		if typ := (tester{t}).activityType(s.LatestActivity(ctx, o2)); typ != "Delete" {
			t.Fatalf("latest activity of a deleted object %q", typ)
		}
		ids, err := s.ActivityIDs(ctx, "Update", []string{o1, o2, o3})
		must(t, err)
		if len(ids) != 1 || ids[o1] != "https://local.example/activities/u1a" {
			t.Fatalf("update ids %v", ids)
		}
		ids, err = s.ActivityIDs(ctx, "Create", []string{o1, o2, o3})
		must(t, err)
		if len(ids) != 2 || ids[o1] != "https://local.example/activities/c1" || ids[o2] != "https://local.example/activities/x2" {
			t.Fatalf("create ids %v", ids)
		}
		if ids, err := s.ActivityIDs(ctx, "Create", nil); err != nil || len(ids) != 0 {
			t.Fatalf("ids of no object %v %v", ids, err)
		}
	})

	t.Run("PruneByAge", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		o1, o2 := "https://local.example/reviews/1", "https://local.example/reviews/2"
		follow := publication("https://local.example/activities/f1", "Follow", alice.ID, actor)
		follow.Relation = &domain.Relation{Type: "Follow", Actor: "https://local.example/users/alice", Object: actor,
			ActivityID: follow.ActivityID}
		pubs := []domain.Publication{
			publication("https://local.example/activities/c1", "Create", alice.ID, o1),
			publication("https://local.example/activities/u1b", "Update", alice.ID, o1),
			publication("https://local.example/activities/u1a", "Update", alice.ID, o1),
			publication("https://local.example/activities/x2", "Create", alice.ID, o2),
			publication("https://local.example/activities/d2", "Delete", alice.ID, o2),
			publication("https://local.example/activities/a1", "Accept", alice.ID, ""),
			follow,
		}
		for _, p := range pubs {
			must(t, s.Publish(ctx, p))
		}
		for i := range 3 {
			if _, err := s.ReceiveActivity(ctx, received(fmt.Sprintf("%s/likes/%d", actor, i), actor)); err != nil {
				t.Fatal(err)
			}
		}
		// Nothing is old enough yet.
		inbox, acts, err := s.PruneFederation(ctx, time.Now(), time.Hour, time.Hour)
		if err != nil || inbox != 0 || acts != 0 {
			t.Fatalf("prune of young rows: %d inbox ids, %d activities, %v", inbox, acts, err)
		}
		// An hour on, past both windows: the superseded Update, the deleted object's Create and the
		// Accept go; the latest activities, the live Create and the Follow stay.
		inbox, acts, err = s.PruneFederation(ctx, time.Now().Add(time.Hour), 30*time.Minute, 30*time.Minute)
		if err != nil || inbox != 3 || acts != 3 {
			t.Fatalf("prune past the windows: %d inbox ids, %d activities, %v; want 3 and 3", inbox, acts, err)
		}
		gone := []string{"u1b", "x2", "a1"}
		for _, p := range pubs {
			_, err := s.PublishedActivity(ctx, p.ActivityID)
			short := p.ActivityID[len("https://local.example/activities/"):]
			if slices.Contains(gone, short) != (domain.KindOf(err) == domain.KindNotFound) {
				t.Fatalf("activity %s after pruning: %v", short, err)
			}
		}
		// A pruned inbound id is received afresh.
		if fresh, err := s.ReceiveActivity(ctx, received(actor+"/likes/0", actor)); err != nil || !fresh {
			t.Fatalf("a pruned inbound id: fresh %v, %v", fresh, err)
		}
	})

	t.Run("Follows", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		if got, err := s.FollowStatus(ctx, domain.RemoteIdentity(actor), domain.LocalIdentity(alice.ID)); err != nil || got != "" {
			t.Fatalf("status of no follow %q %v", got, err)
		}
		if inboxes, err := s.FollowerInboxes(ctx, alice.ID); err != nil || len(inboxes) != 0 {
			t.Fatalf("inboxes of no follower %v %v", inboxes, err)
		}
		// Two remote followers on one server with a shared inbox, one on another without, one not
		// cached, one pending, and two local followers.
		remotes := []string{"https://one.example/users/a", "https://one.example/users/b", "https://two.example/users/c",
			"https://three.example/users/uncached"}
		for _, r := range remotes[:3] {
			a := domain.RemoteActor{URL: r, Inbox: r + "/inbox", KeyID: r + "#key", PublicKeyPEM: "PEM", FetchedAt: t0}
			if r != remotes[2] {
				a.SharedInbox = "https://one.example/inbox"
			}
			must(t, s.SaveRemoteActor(ctx, a))
		}
		for i, r := range remotes {
			must(t, s.AddRemoteFollower(ctx, alice.ID, r, fmt.Sprintf("%s/follows/%d", r, i), "https://local.example/users/alice"))
			must(t, s.AcceptFollower(ctx, alice.ID, domain.RemoteIdentity(r)))
		}
		must(t, s.AddRemoteFollower(ctx, alice.ID, "https://four.example/users/pending", "https://four.example/f",
			"https://local.example/users/alice"))
		var (
			locals []domain.SocialIdentity
			bob    uuid.UUID
		)
		for _, name := range []string{"bob", "carol"} {
			u := createUser(t, s, name)
			if name == "bob" {
				bob = u.ID
			}
			must(t, s.Follow(ctx, u.ID, domain.LocalIdentity(alice.ID)))
			must(t, s.AcceptFollower(ctx, alice.ID, domain.LocalIdentity(u.ID)))
			locals = append(locals, domain.LocalIdentity(u.ID))
		}
		if got, err := s.FollowStatus(ctx, domain.RemoteIdentity(remotes[0]), domain.LocalIdentity(alice.ID)); err != nil || got != "accepted" {
			t.Fatalf("status of an accepted follow %q %v", got, err)
		}
		if got, err := s.FollowStatus(ctx, domain.RemoteIdentity("https://four.example/users/pending"),
			domain.LocalIdentity(alice.ID)); err != nil || got != "pending" {
			t.Fatalf("status of a pending follow %q %v", got, err)
		}
		inboxes, err := s.FollowerInboxes(ctx, alice.ID)
		must(t, err)
		if want := []string{"https://one.example/inbox", "https://two.example/users/c/inbox"}; !slices.Equal(inboxes, want) {
			t.Fatalf("follower inboxes %v, want %v", inboxes, want)
		}

		// The followers collection, paged two at a time, is every accepted follower once.
		all, total, err := s.FollowCollection(ctx, alice.ID, true, 0, 100)
		must(t, err)
		if total != 6 || len(all) != 6 {
			t.Fatalf("followers: total %d, %d items, want 6", total, len(all))
		}
		var paged []domain.SocialIdentity
		for off := 0; off < total; off += 4 {
			page, n, err := s.FollowCollection(ctx, alice.ID, true, off, 4)
			must(t, err)
			if n != total || len(page) != min(4, total-off) {
				t.Fatalf("followers page at %d: total %d, %d items", off, n, len(page))
			}
			paged = append(paged, page...)
		}
		if !slices.Equal(paged, all) {
			t.Fatalf("followers pages %v, want %v", paged, all)
		}
		for _, want := range append(locals, domain.RemoteIdentity(remotes[3])) {
			if !slices.Contains(all, want) {
				t.Fatalf("followers %v lack %v", all, want)
			}
		}
		if page, n, err := s.FollowCollection(ctx, alice.ID, true, 10, 4); err != nil || n != 6 || len(page) != 0 {
			t.Fatalf("followers past the end: %v %d %v", page, n, err)
		}
		following, n, err := s.FollowCollection(ctx, bob, false, 0, 10)
		must(t, err)
		if n != 1 || !slices.Equal(following, []domain.SocialIdentity{domain.LocalIdentity(alice.ID)}) {
			t.Fatalf("following of bob %v (total %d)", following, n)
		}

		if blocked, err := s.HasBlocked(ctx, alice.ID, actor); err != nil || blocked {
			t.Fatalf("blocked before any block: %v %v", blocked, err)
		}
		must(t, s.Block(ctx, alice.ID, domain.RemoteIdentity(actor)))
		if blocked, err := s.HasBlocked(ctx, alice.ID, actor); err != nil || !blocked {
			t.Fatalf("blocked after a block: %v %v", blocked, err)
		}
	})

	t.Run("Reviews", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		_, _, err := s.FederatedReview(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		var logged []uuid.UUID // alice's, oldest first
		for day := 1; day <= 5; day++ {
			l := logReview(t, s, newReview(alice.ID, 3, day), tmdbMovie(day%2))
			logged = append(logged, l.Review.ID)
		}
		b := logReview(t, s, newReview(bob.ID, 4, 9), tmdbMovie(1))
		rr := remoteReview(actor, actor+"/reviews/1", 1, 5, 1)
		must(t, s.SaveRemoteReview(ctx, rr))

		r, m, err := s.FederatedReview(ctx, logged[0])
		must(t, err)
		if r.ID != logged[0] || r.UserID != alice.ID || m.ID != r.MovieID || m.Title != "Movie 1" {
			t.Fatalf("federated review %+v of %+v", r, m)
		}
		_, _, err = s.FederatedReview(ctx, rr.ID)
		wantKind(t, err, domain.KindNotFound, "")

		movie1 := m.ID
		got, err := s.LocalReviewsOfMovie(ctx, movie1)
		must(t, err)
		want := []uuid.UUID{logged[0], logged[2], logged[4], b.Review.ID}
		slices.SortFunc(want, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
		if !slices.Equal(got, want) {
			t.Fatalf("local reviews of a movie %v, want %v (no remote one)", got, want)
		}
		if got, err := s.LocalReviewsOfMovie(ctx, uuid.New()); err != nil || len(got) != 0 {
			t.Fatalf("reviews of an unknown movie %v %v", got, err)
		}

		// The outbox, newest first, in pages of two.
		var paged []uuid.UUID
		for off := 0; off < 6; off += 2 {
			reviews, movies, total, err := s.OutboxReviews(ctx, alice.ID, off, 2)
			must(t, err)
			if total != 5 || len(reviews) != len(movies) || len(reviews) != min(2, max(0, 5-off)) {
				t.Fatalf("outbox page at %d: total %d, %d reviews, %d movies", off, total, len(reviews), len(movies))
			}
			for i, r := range reviews {
				if movies[i].ID != r.MovieID {
					t.Fatalf("outbox review %v with movie %v", r.MovieID, movies[i].ID)
				}
				paged = append(paged, r.ID)
			}
		}
		slices.Reverse(logged)
		if !slices.Equal(paged, logged) {
			t.Fatalf("outbox %v, want newest first %v", paged, logged)
		}
		if reviews, _, total, err := s.OutboxReviews(ctx, uuid.New(), 0, 10); err != nil || total != 0 || len(reviews) != 0 {
			t.Fatalf("outbox of an unknown user %v %d %v", reviews, total, err)
		}

		users, reviews, err := s.NodeStats(ctx)
		if err != nil || users != 2 || reviews != 6 {
			t.Fatalf("node stats %d users, %d reviews, %v; want 2 and 6 (no remote review)", users, reviews, err)
		}
	})

	t.Run("ActorProfile", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		_, err := s.ActorProfile(ctx, uuid.New())
		wantKind(t, err, domain.KindNotFound, "")
		p, err := s.ActorProfile(ctx, alice.ID)
		if err != nil || p.DisplayName != "" || p.AlsoKnownAs != nil || len(p.Fields) != 0 {
			t.Fatalf("actor profile of a new user %+v %v", p, err)
		}
		must(t, s.UpdateProfile(ctx, alice.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.DisplayName, p.Bio, p.AlsoKnownAs = "Alice", "Films.", "https://old.example/users/alice"
			p.Fields = []domain.ProfileField{{Name: "Site", Value: "https://alice.example"}}
			return nil, nil
		}))
		p, err = s.ActorProfile(ctx, alice.ID)
		must(t, err)
		if p.DisplayName != "Alice" || p.Bio != "Films." || !slices.Equal(p.AlsoKnownAs, []string{"https://old.example/users/alice"}) ||
			!slices.Equal(p.Fields, []domain.ProfileField{{Name: "Site", Value: "https://alice.example"}}) {
			t.Fatalf("actor profile %+v", p)
		}
	})
}
