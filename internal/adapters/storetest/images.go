package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/poster"
)

// Images is what RunImages needs of a store: the poster sync, image key swaps and webhook
// tokens.
type Images interface {
	Outbox
	reviewLogger
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
	SetPoster(ctx context.Context, movieID uuid.UUID, key string) (poster.Outcome, error)
	SwapImageKey(ctx context.Context, old, new string) (int64, error)
	ImageKeyInUse(ctx context.Context, key string) (bool, error)
	RequestImageBackfill(ctx context.Context, limit int) (n int, done bool, err error)
	CreateWebhookToken(ctx context.Context, t domain.WebhookToken) error
	WebhookTokens(ctx context.Context, userID uuid.UUID) ([]domain.WebhookToken, error)
	DeleteWebhookToken(ctx context.Context, userID, id uuid.UUID) error
	UseWebhookToken(ctx context.Context, hash string, provider domain.WatchSource, now time.Time) (domain.WebhookToken, error)
}

// RunImages runs the poster, image key and webhook token cases against stores open makes.
func RunImages(t *testing.T, open func(t *testing.T, faults *Faults) Images) {
	ctx := context.Background()

	// ImageBackfill: every stored poster and avatar is requested once, in batches, and a
	// finished backfill requests nothing again.
	t.Run("ImageBackfill", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice := createUser(t, s, "alice")
		for i := range 3 {
			m := logReview(t, s, newReview(alice.ID, 3, i+1), tmdbMovie(i+1)).Movie
			_, err := s.SetPoster(ctx, m.ID, domain.PosterKey(m.ID))
			must(t, err)
		}
		must(t, s.UpdateProfile(ctx, alice.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.AvatarKey, p.BannerKey = "avatars/a/b.webp", "banners/a/b.webp"
			return nil, nil
		}))
		before := events(t, s)
		var total, runs int
		for done := false; !done; runs++ {
			var n int
			var err error
			n, done, err = s.RequestImageBackfill(ctx, 2)
			must(t, err)
			total += n
		}
		if total != 4 || runs != 3 || events(t, s) != before+4 {
			t.Fatalf("requested %d images in %d runs (%d events), want 4 in 3", total, runs, events(t, s)-before)
		}
		if n, done, err := s.RequestImageBackfill(ctx, 2); n != 0 || !done || err != nil {
			t.Fatalf("after done: %d, %v, %v", n, done, err)
		}
	})

	t.Run("PostersAndKeys", func(t *testing.T) {
		t.Parallel()
		faults := &Faults{}
		s := open(t, faults)
		alice := createUser(t, s, "alice")
		m := logReview(t, s, newReview(alice.ID, 3, 1), tmdbMovie(1)).Movie
		before := events(t, s)
		for _, c := range []struct {
			key  string
			want poster.Outcome
		}{{"posters/a.jpg", poster.Set}, {"posters/a.jpg", poster.AlreadySet}} {
			got, err := s.SetPoster(ctx, m.ID, c.key)
			must(t, err)
			if got != c.want {
				t.Fatalf("set poster %s: %v, want %v", c.key, got, c.want)
			}
		}
		if n := events(t, s); n != before+2 {
			t.Fatalf("%d events after one poster set, want %d", n, before+2)
		}
		if got, err := s.SetPoster(ctx, uuid.New(), "posters/b.jpg"); err != nil || got != poster.MovieGone {
			t.Fatalf("poster of an unknown movie: %v %v", got, err)
		}
		// A failing enqueue keeps the old poster.
		faults.Set(true)
		_, err := s.SetPoster(ctx, m.ID, "posters/c.jpg")
		faults.Set(false)
		if !errors.Is(err, ErrInjected) {
			t.Fatalf("set poster with a failing enqueue: %v", err)
		}
		if got, _ := s.MovieByID(ctx, m.ID); got.PosterPath == nil || *got.PosterPath != "posters/a.jpg" {
			t.Fatalf("poster after a failed set: %v", got.PosterPath)
		}

		// The converted image replaces the key everywhere, users' avatars with UserUpdated.
		must(t, s.UpdateProfile(ctx, alice.ID, func(p *domain.Profile) ([]domain.Event, error) {
			p.AvatarKey, p.BannerKey = "posters/a.jpg", "posters/a.jpg"
			return nil, nil
		}))
		before = events(t, s)
		converted := domain.ConvertedKey("posters/a.jpg")
		n, err := s.SwapImageKey(ctx, "posters/a.jpg", converted)
		must(t, err)
		if n != 2 || events(t, s) != before+1 {
			t.Fatalf("swap changed %d (want a movie and a user), %d events (want %d)", n, events(t, s), before+1)
		}
		u, err := s.UserByID(ctx, alice.ID)
		must(t, err)
		if u.Profile.AvatarKey != converted || u.Profile.BannerKey != converted {
			t.Fatalf("profile after the swap %+v", u.Profile)
		}
		if got, err := s.SetPoster(ctx, m.ID, "posters/a.jpg"); err != nil || got != poster.AlreadyConverted {
			t.Fatalf("setting the original of a converted poster: %v %v", got, err)
		}
		for key, want := range map[string]bool{converted: true, "posters/a.jpg": false, "posters/none.jpg": false} {
			if used, err := s.ImageKeyInUse(ctx, key); err != nil || used != want {
				t.Errorf("key %s in use: %v %v, want %v", key, used, err, want)
			}
		}
	})

	t.Run("WebhookTokens", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
		label, rating := "living room", 4
		first := domain.WebhookToken{ID: uuid.New(), UserID: alice.ID, Provider: domain.SourcePlex, Label: &label, Hash: "hash1",
			AutoConfirmRating: &rating, CreatedAt: t0}
		second := domain.WebhookToken{ID: uuid.New(), UserID: alice.ID, Provider: domain.SourceJellyfin, Hash: "hash2",
			CreatedAt: t0.Add(time.Minute)}
		must(t, s.CreateWebhookToken(ctx, first))
		must(t, s.CreateWebhookToken(ctx, second))
		list, err := s.WebhookTokens(ctx, alice.ID)
		must(t, err)
		if len(list) != 2 || list[0].ID != first.ID || *list[0].Label != label || *list[0].AutoConfirmRating != 4 ||
			list[1].Label != nil || list[1].LastUsedAt != nil || !list[1].CreatedAt.Equal(second.CreatedAt) {
			t.Fatalf("tokens %+v", list)
		}
		if none, err := s.WebhookTokens(ctx, bob.ID); err != nil || none == nil || len(none) != 0 {
			t.Fatalf("bob's tokens %v %v, want an empty list", none, err)
		}
		used, err := s.UseWebhookToken(ctx, "hash1", domain.SourcePlex, t0.Add(time.Hour))
		must(t, err)
		if used.ID != first.ID || used.LastUsedAt == nil || !used.LastUsedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("used token %+v", used)
		}
		_, err = s.UseWebhookToken(ctx, "hash1", domain.SourceJellyfin, t0)
		wantKind(t, err, domain.KindNotFound, "")
		wantKind(t, s.DeleteWebhookToken(ctx, bob.ID, first.ID), domain.KindNotFound, "")
		must(t, s.DeleteWebhookToken(ctx, alice.ID, first.ID))
		_, err = s.UseWebhookToken(ctx, "hash1", domain.SourcePlex, t0)
		wantKind(t, err, domain.KindNotFound, "")
	})
}
