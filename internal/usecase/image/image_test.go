package image_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/image"
)

var _ image.Refs = (*sqlite.Store)(nil)

type bundle struct {
	*mediatest.Env
	conv    *image.Conversion
	cleanup *image.Cleanup
	movie   uuid.UUID
	key     string
	encodes int
}

// setup stores a movie whose poster (a JPEG) is stored under its key, as poster sync leaves it.
func setup(t *testing.T, opts ...mediatest.Option) *bundle {
	t.Helper()
	env := mediatest.New(t, opts...)
	b := &bundle{Env: env}
	enc := func(src []byte) ([]byte, error) { b.encodes++; return imaging.WebP{}.Encode(src) }
	b.conv = image.NewConversion(env.Store, env.Objects, enc, env.Log)
	b.cleanup = image.NewCleanup(env.Store, env.Objects, env.Log)
	b.movie = env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	b.key = domain.PosterKey(b.movie)
	if err := env.Images.Put(context.Background(), b.key, tmdbtest.PosterJPEG()); err != nil {
		t.Fatal(err)
	}
	env.Exec(`UPDATE movies SET poster_path = ?`, b.key)
	return b
}

func (b *bundle) exists(key string) bool {
	ok, err := b.Images.Exists(context.Background(), key)
	if err != nil {
		b.T.Fatal(err)
	}
	return ok
}

// converted checks the end state of a conversion: the WebP stored once, the movie pointing at
// it and the original gone.
func (b *bundle) converted(t *testing.T, encodes int) {
	t.Helper()
	target := domain.ConvertedKey(b.key)
	if got := b.String(`SELECT poster_path FROM movies`); got != target {
		t.Errorf("poster_path = %q, want %q", got, target)
	}
	if b.exists(b.key) {
		t.Error("original still stored")
	}
	data, err := b.Images.Get(context.Background(), target)
	if err != nil || http.DetectContentType(data) != "image/webp" {
		t.Errorf("converted object: %d bytes of %s, %v", len(data), http.DetectContentType(data), err)
	}
	if n := b.Objects.Puts(target); n != 1 {
		t.Errorf("target written %d times, want once", n)
	}
	if b.encodes != encodes {
		t.Errorf("encoded %d times, want %d", b.encodes, encodes)
	}
}

func TestConversionTwice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 2 {
		if err := b.conv.Handle(context.Background(), domain.ImageStored{Key: b.key}); err != nil {
			t.Fatal(err)
		}
	}
	b.converted(t, 1)
	// A converted key is never converted again (no second lossy pass).
	if err := b.conv.Handle(context.Background(), domain.ImageStored{Key: domain.ConvertedKey(b.key)}); err != nil || b.encodes != 1 {
		t.Errorf("converted key: %v, %d encodes", err, b.encodes)
	}
}

// TestConversionKilledBetweenSteps fails each step once and re-runs until done, on both image
// stores: the directory and a real S3 bucket.
func TestConversionKilledBetweenSteps(t *testing.T) {
	t.Parallel()
	for name, opts := range mediatest.Stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testConversionKilledBetweenSteps(t, opts)
		})
	}
}

func testConversionKilledBetweenSteps(t *testing.T, opts []mediatest.Option) {
	for _, st := range []struct {
		name    string
		failAt  string // Objects operation to fail
		swap    bool   // fail the database swap instead
		encodes int
	}{
		{name: "probing the target", failAt: "exists", encodes: 1},
		{name: "reading the original", failAt: "get", encodes: 1},
		{name: "writing the target", failAt: "put", encodes: 2},
		{name: "after writing the target", failAt: "after-put", encodes: 1},
		{name: "swapping the reference", swap: true, encodes: 1},
		{name: "deleting the original", failAt: "delete", encodes: 1},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, opts...)
			ctx := context.Background()
			if st.swap {
				b.Exec(`CREATE TRIGGER fail_swap BEFORE UPDATE OF poster_path ON movies BEGIN SELECT RAISE(ABORT, 'injected'); END`)
			}
			b.Objects.FailAt(st.failAt)
			if err := b.conv.Handle(ctx, domain.ImageStored{Key: b.key}); err == nil || domain.IsPermanent(err) {
				t.Fatalf("injected failure: %v, want a transient error", err)
			}
			b.Objects.FailAt("")
			b.Exec(`DROP TRIGGER IF EXISTS fail_swap`)
			// The poster is servable whatever the failure: the row points at an object that exists.
			if p := b.String(`SELECT poster_path FROM movies`); !b.exists(p) {
				t.Fatalf("after the failure poster_path %q names no object", p)
			}
			for range 2 {
				if err := b.conv.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
					t.Fatal(err)
				}
			}
			b.converted(t, st.encodes)
		})
	}
}

func TestConversionOfAMissingOriginal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.Exec(`DELETE FROM movies`)
	if err := b.Images.Delete(context.Background(), b.key); err != nil {
		t.Fatal(err)
	}
	if err := b.conv.Handle(context.Background(), domain.ImageStored{Key: b.key}); err != nil || b.encodes != 0 {
		t.Fatalf("missing original: %v, %d encodes; want done, nothing encoded", err, b.encodes)
	}
	for _, key := range []string{"https://remote.example/p.jpg", "../escape"} {
		if err := b.conv.Handle(context.Background(), domain.ImageStored{Key: key}); err != nil {
			t.Errorf("ImageStored{%q}: %v, want skipped", key, err)
		}
	}
}

func TestConversionOfGarbageIsPermanent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.Images.Put(context.Background(), b.key, []byte("<html>not an image</html>")); err != nil {
		t.Fatal(err)
	}
	err := b.conv.Handle(context.Background(), domain.ImageStored{Key: b.key})
	if !domain.IsPermanent(err) {
		t.Fatalf("garbage original: %v, want a permanent error", err)
	}
	if b.exists(domain.ConvertedKey(b.key)) || b.String(`SELECT poster_path FROM movies`) != b.key || !b.exists(b.key) {
		t.Error("a failed conversion changed something")
	}
}

// TestCleanupDeletesEveryVariantTwice: the clean-up deletes the poster and its conversion, and
// running it again (every object already gone) succeeds, on both image stores.
func TestCleanupDeletesEveryVariantTwice(t *testing.T) {
	t.Parallel()
	for name, opts := range mediatest.Stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, opts...)
			ctx := context.Background()
			if err := b.conv.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
				t.Fatal(err)
			}
			// A late sync left the original again beside the conversion.
			if err := b.Images.Put(ctx, b.key, tmdbtest.PosterJPEG()); err != nil {
				t.Fatal(err)
			}
			b.Exec(`DELETE FROM movies`)
			converted := domain.ConvertedKey(b.key)
			for range 2 {
				if err := b.cleanup.Handle(ctx, domain.MovieDeleted{MovieID: b.movie, PosterPath: &converted}); err != nil {
					t.Fatal(err)
				}
			}
			if b.exists(b.key) || b.exists(converted) {
				t.Error("poster objects left after clean-up")
			}
		})
	}
}

// TestCleanupDeletesTheBackdrop: a deleted movie's backdrop goes with it, converted and with its
// thumbnail; the conversion swapped the movie's backdrop_key, so the original was in use until
// then and the conversion is while the movie exists.
func TestCleanupDeletesTheBackdrop(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	key := domain.BackdropKey(b.movie)
	if err := b.Images.Put(ctx, key, tmdbtest.PosterJPEG()); err != nil {
		t.Fatal(err)
	}
	b.Exec(`UPDATE movies SET backdrop_key = ?`, key)
	if err := b.conv.Handle(ctx, domain.ImageStored{Key: key}); err != nil {
		t.Fatal(err)
	}
	converted, thumb := domain.ConvertedKey(key), domain.ThumbKey(key, 780)
	if got := b.String(`SELECT backdrop_key FROM movies`); got != converted || b.exists(key) || !b.exists(converted) {
		t.Fatalf("after the conversion: backdrop_key %q, original kept %v", got, b.exists(key))
	}
	if err := b.Images.Put(ctx, thumb, []byte("thumbnail")); err != nil {
		t.Fatal(err)
	}
	// While the movie exists its backdrop is in use.
	if err := b.cleanup.Handle(ctx, domain.MovieDeleted{MovieID: b.movie}); err != nil {
		t.Fatal(err)
	}
	if !b.exists(converted) || !b.exists(thumb) {
		t.Fatal("clean-up deleted the backdrop of a movie that exists")
	}
	b.Exec(`DELETE FROM movies`)
	if err := b.cleanup.Handle(ctx, domain.MovieDeleted{MovieID: b.movie}); err != nil {
		t.Fatal(err)
	}
	if b.exists(converted) || b.exists(thumb) {
		t.Error("backdrop objects left after clean-up")
	}
}

func TestCleanupKeepsAPosterInUseAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The movie was deleted, then logged again and re-synced before the clean-up ran.
	if err := b.cleanup.Handle(context.Background(), domain.MovieDeleted{MovieID: b.movie, PosterPath: &b.key}); err != nil {
		t.Fatal(err)
	}
	if !b.exists(b.key) {
		t.Error("clean-up deleted a poster a movie points at")
	}
	remote := "https://remote.example/poster.jpg"
	if err := b.cleanup.Handle(context.Background(), domain.MovieDeleted{MovieID: uuid.New(), PosterPath: &remote}); err != nil {
		t.Errorf("remote poster URL: %v", err)
	}
}

func TestCleanupFailureIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.Exec(`DELETE FROM movies`)
	b.Objects.FailAt("delete")
	if err := b.cleanup.Handle(context.Background(), domain.MovieDeleted{MovieID: b.movie, PosterPath: &b.key}); err == nil {
		t.Fatal("storage failure swallowed")
	}
	b.Objects.FailAt("")
	if err := b.cleanup.Handle(context.Background(), domain.MovieDeleted{MovieID: b.movie, PosterPath: &b.key}); err != nil || b.exists(b.key) {
		t.Fatalf("re-run: %v", err)
	}
}
