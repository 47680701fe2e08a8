package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// Social is what RunSocial needs of a store: follow requests answered by their owner, blocks,
// and a user's statistics over their reviews.
type Social interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	RejectFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	RemoveFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error
	Unfollow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error
	Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Unblock(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error
	Blocked(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error)
	UserStats(ctx context.Context, id uuid.UUID) (user.Stats, error)
	UserTrends(ctx context.Context, id uuid.UUID, limit int) (user.Trends, error)
	UserSummaries(ctx context.Context) ([]user.Summary, error)
}

// RunSocial runs the follow, block and statistics cases against stores open makes.
func RunSocial(t *testing.T, open func(t *testing.T, faults *Faults) Social) {
	ctx := context.Background()

	t.Run("AnswersAndBlocks", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob, carol := createUser(t, s, "alice"), createUser(t, s, "bob"), createUser(t, s, "carol")
		must(t, s.UpdateProfile(ctx, bob.ID, func(p *domain.Profile) ([]domain.Event, error) { p.DisplayName = "Bob"; return nil, nil }))
		before := events(t, s)
		must(t, s.Follow(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		must(t, s.Follow(ctx, bob.ID, domain.LocalIdentity(alice.ID))) // already there: no event
		must(t, s.RejectFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		wantKind(t, s.RejectFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)), domain.KindNotFound,
			"No pending follow request from this actor")
		must(t, s.Follow(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		must(t, s.AcceptFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		followers, err := s.Followers(ctx, alice.ID, false)
		must(t, err)
		if len(followers) != 1 || followers[0].Username != "bob" || *followers[0].DisplayName != "Bob" {
			t.Fatalf("followers %+v", followers)
		}
		must(t, s.RemoveFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		wantKind(t, s.RemoveFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)), domain.KindNotFound, "This actor does not follow you")
		wantKind(t, s.Unfollow(ctx, bob.ID, domain.LocalIdentity(alice.ID)), domain.KindNotFound, "You do not follow this actor")
		// Follow, reject, follow, accept, remove: 5 events.
		if n := events(t, s); n != before+5 {
			t.Fatalf("%d events, want %d", n-before, 5)
		}

		must(t, s.Follow(ctx, carol.ID, domain.LocalIdentity(alice.ID)))
		must(t, s.AcceptFollower(ctx, alice.ID, domain.LocalIdentity(carol.ID)))
		must(t, s.Block(ctx, alice.ID, domain.LocalIdentity(carol.ID)))
		must(t, s.Block(ctx, alice.ID, domain.LocalIdentity(carol.ID))) // again: nothing
		must(t, s.Block(ctx, alice.ID, domain.RemoteIdentity("https://remote.example/users/rita")))
		blocked, err := s.Blocked(ctx, alice.ID)
		must(t, err)
		if len(blocked) != 2 || blocked[0].Username != "carol" {
			t.Fatalf("blocked %+v", blocked)
		}
		if followers, _ := s.Followers(ctx, alice.ID, false); len(followers) != 0 {
			t.Fatalf("a blocked follower still follows: %+v", followers)
		}
		wantKind(t, s.Follow(ctx, carol.ID, domain.LocalIdentity(alice.ID)), domain.KindForbidden, "")
		must(t, s.Unblock(ctx, alice.ID, domain.LocalIdentity(carol.ID)))
		wantKind(t, s.Unblock(ctx, alice.ID, domain.LocalIdentity(carol.ID)), domain.KindNotFound, "You have not blocked this actor")
		must(t, s.Follow(ctx, carol.ID, domain.LocalIdentity(alice.ID)))
	})

	t.Run("StatsAndTrends", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		cinema, tv := domain.WatchMedium("cinema"), domain.WatchMedium("tv")
		nolan, lynch := "Nolan", "Lynch"
		movies := []domain.Movie{
			{Title: "A", ReleaseYear: 2001, Director: &nolan, Genres: []string{"Drama", "Crime"}},
			{Title: "B", ReleaseYear: 2002, Director: &nolan, Genres: []string{"Drama"}},
			{Title: "C", ReleaseYear: 2003, Director: &lynch, Genres: []string{"Mystery"}},
		}
		for _, c := range []struct {
			movie, rating, day int
			medium             *domain.WatchMedium
		}{{0, 5, 0, nil}, {1, 4, 1, &cinema}, {2, 2, 40, &tv}, {0, 3, 41, &cinema}} {
			r := newReview(alice.ID, c.rating, c.day)
			r.WatchMedium = c.medium
			logReview(t, s, r, movies[c.movie])
		}
		must(t, s.Follow(ctx, bob.ID, domain.LocalIdentity(alice.ID)))
		must(t, s.AcceptFollower(ctx, alice.ID, domain.LocalIdentity(bob.ID)))
		st, err := s.UserStats(ctx, alice.ID)
		must(t, err)
		if st.TotalMovies != 4 || *st.AvgRating != 3.5 || *st.FavoriteDirector != "Nolan" || *st.MostActiveMonth != "2026-04" ||
			st.FollowersCount != 1 || st.FollowingCount != 0 {
			t.Fatalf("stats %+v (avg %v, director %v, month %v)", st, *st.AvgRating, *st.FavoriteDirector, *st.MostActiveMonth)
		}
		tr, err := s.UserTrends(ctx, alice.ID, 2)
		must(t, err)
		got := fmt.Sprint(tr.Monthly, tr.TopDirectors, tr.TopGenres, tr.RatingDistribution, tr.Media)
		want := "[{2026-03 4.5 2} {2026-04 2.5 2}] [{Nolan 3} {Lynch 1}] [{Drama 3} {Crime 2}] [0 1 1 1 1] [{cinema 2} {tv 1}]"
		if got != want {
			t.Fatalf("trends %s\nwant   %s", got, want)
		}
		sums, err := s.UserSummaries(ctx)
		must(t, err)
		if len(sums) != 2 || sums[0].TotalMovies != 4 || *sums[0].AvgRating != 3.5 || sums[0].FollowersCount != 1 || sums[1].FollowingCount != 1 {
			t.Fatalf("summaries %+v", sums)
		}
	})
}
