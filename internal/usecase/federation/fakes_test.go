package federation_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

const base = "https://here.example"

// store is a hand-written fake of every store port: maps for what the tests set up, slices
// for what the use case wrote. A method a test does not expect to be reached fails it.
type store struct {
	t  *testing.T
	mu sync.Mutex

	users          map[uuid.UUID]domain.User
	settings       map[uuid.UUID]domain.FederationSettings
	settingsErr    error
	domainBlocks   []string
	userBlocks     map[string]bool // "user actor" pairs a user blocked
	reviews        map[uuid.UUID]domain.Review
	movies         map[uuid.UUID]domain.Movie
	goals          map[uuid.UUID]domain.GoalProgress
	followerInbox  map[uuid.UUID][]string
	followStatus   map[string]string // "follower target" → status
	relations      map[string]domain.Relation
	created        map[string]string
	receivedBefore map[string]bool

	published    []domain.Publication
	received     []domain.ActivityReceived
	savedReviews []domain.RemoteReview
	deleted      [][2]string
	followers    []string // "add|remove|accepted|rejected|blocked-by user actor", "move old new"
	reactions    []domain.Reaction
}

func newStore(t *testing.T) *store {
	return &store{t: t, users: map[uuid.UUID]domain.User{}, settings: map[uuid.UUID]domain.FederationSettings{},
		userBlocks: map[string]bool{}, reviews: map[uuid.UUID]domain.Review{}, movies: map[uuid.UUID]domain.Movie{},
		goals:         map[uuid.UUID]domain.GoalProgress{},
		followerInbox: map[uuid.UUID][]string{}, followStatus: map[string]string{}, relations: map[string]domain.Relation{},
		created: map[string]string{}, receivedBefore: map[string]bool{}}
}

func (s *store) UserByID(_ context.Context, id uuid.UUID) (domain.User, error) {
	if u, ok := s.users[id]; ok {
		return u, nil
	}
	return domain.User{}, domain.NotFound("Entity not found: user %s", id)
}

func (s *store) UserByUsername(_ context.Context, name string) (domain.User, error) {
	for _, u := range s.users {
		if u.Username == name {
			return u, nil
		}
	}
	return domain.User{}, domain.NotFound("Entity not found: user %s", name)
}

func (s *store) UserByFormerUsername(_ context.Context, name string, _ time.Time) (domain.User, error) {
	return domain.User{}, domain.NotFound("Entity not found: user %s", name)
}

func (s *store) Settings(_ context.Context, user uuid.UUID) (domain.FederationSettings, error) {
	if s.settingsErr != nil {
		return domain.FederationSettings{}, s.settingsErr
	}
	if set, ok := s.settings[user]; ok {
		return set, nil
	}
	return domain.DefaultFederationSettings, nil
}

func (s *store) DomainBlocked(_ context.Context, host string) (bool, error) {
	for _, d := range s.domainBlocks {
		if d == host {
			return true, nil
		}
	}
	return false, nil
}

func (s *store) BlockedDomains(context.Context) ([]string, error) { return s.domainBlocks, nil }

func (s *store) HasBlocked(_ context.Context, user uuid.UUID, actor string) (bool, error) {
	return s.userBlocks[user.String()+" "+actor], nil
}

func (s *store) FederatedReview(_ context.Context, id uuid.UUID) (domain.Review, domain.Movie, error) {
	r, ok := s.reviews[id]
	if !ok {
		return domain.Review{}, domain.Movie{}, domain.NotFound("Entity not found: review")
	}
	return r, s.movies[id], nil
}

func (s *store) GoalByID(_ context.Context, id uuid.UUID) (domain.GoalProgress, error) {
	g, ok := s.goals[id]
	if !ok {
		return domain.GoalProgress{}, domain.NotFound("Entity not found: goal")
	}
	return g, nil
}

func (s *store) LocalReviewsOfMovie(context.Context, uuid.UUID) ([]uuid.UUID, error) {
	s.t.Fatal("LocalReviewsOfMovie not expected")
	return nil, nil
}

func (s *store) OutboxReviews(_ context.Context, user uuid.UUID, offset, limit int) ([]domain.Review, []domain.Movie, int, error) {
	var rs []domain.Review
	var ms []domain.Movie
	for id, r := range s.reviews {
		if r.UserID == user {
			rs, ms = append(rs, r), append(ms, s.movies[id])
		}
	}
	return rs, ms, len(rs), nil
}

func (s *store) NodeStats(context.Context) (int, int, error) {
	return len(s.users), len(s.reviews), nil
}

func (s *store) FollowerInboxes(_ context.Context, user uuid.UUID) ([]string, error) {
	return s.followerInbox[user], nil
}

func (s *store) FollowStatus(_ context.Context, follower, target domain.SocialIdentity) (string, error) {
	return s.followStatus[follower.ID+" "+target.ID], nil
}

func (s *store) FollowCollection(context.Context, uuid.UUID, bool, int, int) ([]domain.SocialIdentity, int, error) {
	s.t.Fatal("FollowCollection not expected")
	return nil, 0, nil
}

func (s *store) AddRemoteFollower(_ context.Context, user uuid.UUID, actor, _, _ string) error {
	s.followers = append(s.followers, "add "+user.String()+" "+actor)
	return nil
}

func (s *store) RemoveRemoteFollower(_ context.Context, user uuid.UUID, actor string) error {
	s.followers = append(s.followers, "remove "+user.String()+" "+actor)
	return nil
}

func (s *store) FollowAnswered(_ context.Context, user uuid.UUID, actor string, accepted bool) error {
	verb := "rejected"
	if accepted {
		verb = "accepted"
	}
	s.followers = append(s.followers, verb+" "+user.String()+" "+actor)
	return nil
}

func (s *store) Publish(_ context.Context, p domain.Publication) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.published = append(s.published, p)
	return nil
}

func (s *store) Relation(_ context.Context, typ, actor, object string) (string, error) {
	return s.relations[typ+" "+actor+" "+object].ActivityID, nil
}

func (s *store) RelationByID(_ context.Context, id string) (domain.Relation, error) {
	for _, r := range s.relations {
		if r.ActivityID == id {
			return r, nil
		}
	}
	return domain.Relation{}, domain.NotFound("Entity not found: relation")
}

func (s *store) ActivityIDs(_ context.Context, _ string, objects []string) (map[string]string, error) {
	out := map[string]string{}
	for _, o := range objects {
		if id, ok := s.created[o]; ok {
			out[o] = id
		}
	}
	return out, nil
}

func (s *store) PublishedActivity(context.Context, string) ([]byte, error) {
	return nil, domain.ErrNotFound
}
func (s *store) LatestActivity(context.Context, string) ([]byte, error) {
	return nil, domain.ErrNotFound
}

func (s *store) ReceiveActivity(_ context.Context, e domain.ActivityReceived) (bool, error) {
	if s.receivedBefore[e.ActivityID] {
		return false, nil
	}
	s.receivedBefore[e.ActivityID] = true
	s.received = append(s.received, e)
	return true, nil
}

func (s *store) SaveRemoteReview(_ context.Context, r domain.RemoteReview) error {
	s.savedReviews = append(s.savedReviews, r)
	return nil
}

func (s *store) DeleteRemoteReviews(_ context.Context, actor, apID string) error {
	s.deleted = append(s.deleted, [2]string{actor, apID})
	return nil
}

// remote is a fake of the Remote port: known actors, recorded deliveries and outbox pages.
type remote struct {
	actors     map[string]domain.RemoteActor
	pages      map[string]federation.OutboxPage
	fetched    []string
	deliveries []string // inboxes delivered to
}

func (r *remote) Actor(_ context.Context, url string, _ bool) (domain.RemoteActor, error) {
	if a, ok := r.actors[url]; ok {
		return a, nil
	}
	return domain.RemoteActor{}, domain.Permanent(errors.New("no such actor " + url))
}

func (r *remote) Deliver(_ context.Context, inbox string, _ []byte, _ uuid.UUID) error {
	r.deliveries = append(r.deliveries, inbox)
	return nil
}

func (r *remote) OutboxPage(_ context.Context, url string, _ uuid.UUID) (federation.OutboxPage, error) {
	r.fetched = append(r.fetched, url)
	return r.pages[url], nil
}

// encode is a stand-in for the wire format: the activity itself as JSON.
func encode(_ context.Context, a federation.Activity) ([]byte, error) { return json.Marshal(a) }

// bundle is a service over fakes.
type bundle struct {
	svc    *federation.Service
	store  *store
	remote *remote
}

func setup(t *testing.T) bundle {
	t.Helper()
	st, rm := newStore(t), &remote{actors: map[string]domain.RemoteActor{}, pages: map[string]federation.OutboxPage{}}
	svc, err := federation.New(federation.Deps{Accounts: st, Blocks: st, Reviews: st, Goals: st, Follows: st, Publications: st,
		Inbox: st, Remote: rm, Encode: encode}, federation.Config{BaseURL: base, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return bundle{svc: svc, store: st, remote: rm}
}

// addUser makes a local user.
func (b bundle) addUser(name string) domain.User {
	u := domain.User{ID: uuid.New(), Username: name}
	b.store.users[u.ID] = u
	return u
}

// addActor makes a remote actor with its own inbox and a shared one.
func (b bundle) addActor(url, sharedInbox string) domain.RemoteActor {
	a := domain.RemoteActor{URL: url, Inbox: url + "/inbox", SharedInbox: sharedInbox}
	b.remote.actors[url] = a
	return a
}

// addReview gives u a review of The Matrix.
func (b bundle) addReview(u domain.User) domain.Review {
	r := domain.Review{ID: uuid.New(), UserID: u.ID, Rating: 4, WatchedAt: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}
	b.store.reviews[r.ID] = r
	b.store.movies[r.ID] = domain.Movie{ID: domain.MovieIDFor("tt0133093"), Title: "The Matrix", ReleaseYear: 1999}
	return r
}

func (s *store) ActorProfile(_ context.Context, id uuid.UUID) (domain.ActorProfile, error) {
	return domain.ActorProfile{DisplayName: s.users[id].Username}, nil
}

func (s *store) ReactionCounts(_ context.Context, review uuid.UUID) (domain.ReactionCounts, error) {
	var c domain.ReactionCounts
	for _, r := range s.reactions {
		if r.ReviewID == review && r.Kind == "Like" {
			c.Likes++
		} else if r.ReviewID == review {
			c.Boosts++
		}
	}
	return c, nil
}

func (s *store) BlockedByRemote(_ context.Context, user uuid.UUID, actor string) error {
	s.followers = append(s.followers, "blocked-by "+user.String()+" "+actor)
	return nil
}

func (s *store) MoveFollows(_ context.Context, oldActor, newActor string) error {
	s.followers = append(s.followers, "move "+oldActor+" "+newActor)
	return nil
}

func (s *store) SaveReaction(_ context.Context, r domain.Reaction) error {
	s.reactions = append(s.reactions, r)
	return nil
}

func (s *store) RemoveReaction(_ context.Context, r domain.Reaction) error {
	s.reactions = slices.DeleteFunc(s.reactions, func(x domain.Reaction) bool {
		return x.ActorURL == r.ActorURL && ((r.ActivityID != "" && x.ActivityID == r.ActivityID) || (x.Kind == r.Kind && x.ReviewID == r.ReviewID))
	})
	return nil
}
