package poster_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/poster"
)

type bundle struct {
	*mediatest.Env
	sync  *poster.Sync
	movie uuid.UUID
	key   string
	imgs  string // the fake's poster image path
}

func setup(t *testing.T, opts ...mediatest.Option) *bundle {
	t.Helper()
	env := mediatest.New(t, opts...)
	client := tmdb.NewClient(tmdb.Config{APIURL: env.TMDb.APIURL(), ImageURL: env.TMDb.ImageURL(), APIKey: tmdbtest.Key,
		HTTP: env.TMDb.Server.Client(), Timeout: 2 * time.Second, MaxImageBytes: 1 << 20})
	id := env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	return &bundle{Env: env, sync: poster.New(env.Store, env.Objects, client, env.Log), movie: id,
		key: domain.PosterKey(id), imgs: "/t/p/w500/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg"}
}

func (b *bundle) discovered() domain.Event {
	return domain.MovieDiscovered{MovieID: b.movie, ExternalMetadataID: mediatest.BladeRunner}
}

// done checks the end state of one successful sync: the poster stored once, the movie pointing
// at it, and exactly one PosterSynced and one ImageStored in the outbox.
func (b *bundle) done(t *testing.T) { b.doneAfter(t, 1) }

// doneAfter is done when the image had to be downloaded downloads times (a failure after the
// download and before the write costs a second one).
func (b *bundle) doneAfter(t *testing.T, downloads int) {
	t.Helper()
	if got := b.String(`SELECT poster_path FROM movies WHERE id = ?`, b.movie.String()); got != b.key {
		t.Errorf("poster_path = %q, want %q", got, b.key)
	}
	if ok, _ := b.Images.Exists(context.Background(), b.key); !ok {
		t.Error("poster object missing")
	}
	if n := b.Objects.Puts(b.key); n != 1 {
		t.Errorf("poster written %d times, want once", n)
	}
	if n := b.TMDb.Count(b.imgs); n != downloads {
		t.Errorf("poster downloaded %d times, want %d", n, downloads)
	}
	if n := b.Events("PosterSynced"); n != 1 {
		t.Errorf("%d PosterSynced, want 1", n)
	}
	if n := b.Int(`SELECT count(*) FROM event_queue WHERE event_type = 'ImageStored' AND json_extract(payload, '$.data.key') = ?`, b.key); n != 1 {
		t.Errorf("%d ImageStored for the poster, want 1", n)
	}
}

func TestSyncTwiceEmitsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for range 2 {
		if err := b.sync.Handle(ctx, b.discovered()); err != nil {
			t.Fatal(err)
		}
	}
	// The enrichment request of the same movie finds the poster there.
	if err := b.sync.Handle(ctx, domain.MovieEnrichmentRequested{MovieID: b.movie, ExternalMetadataID: mediatest.BladeRunner}); err != nil {
		t.Fatal(err)
	}
	b.done(t)
}

// TestSyncKilledBetweenSteps fails each step once (the process dying there) and re-runs: the
// end state is the same as one clean run, with no second download, write or event. It runs on
// both image stores: the directory and a real S3 bucket.
func TestSyncKilledBetweenSteps(t *testing.T) {
	t.Parallel()
	for name, opts := range mediatest.Stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testSyncKilledBetweenSteps(t, opts)
		})
	}
}

func testSyncKilledBetweenSteps(t *testing.T, opts []mediatest.Option) {
	steps := []struct {
		name      string
		inject    func(b *bundle) (undo func())
		downloads int
	}{
		{"before probing the storage", func(b *bundle) func() { b.Objects.FailAt("exists"); return func() { b.Objects.FailAt("") } }, 1},
		{"at the TMDb lookup", func(b *bundle) func() {
			b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
				if strings.HasPrefix(r.URL.Path, "/3/") {
					w.WriteHeader(503)
					return true
				}
				return false
			})
			return func() { b.TMDb.SetOverride(nil) }
		}, 1},
		{"before writing the object", func(b *bundle) func() { b.Objects.FailAt("put"); return func() { b.Objects.FailAt("") } }, 2},
		{"after writing the object, before the database", func(b *bundle) func() {
			b.Objects.FailAt("after-put")
			return func() { b.Objects.FailAt("") }
		}, 1},
		{"in the database transaction", func(b *bundle) func() {
			b.FailEnqueue.Store(true)
			return func() { b.FailEnqueue.Store(false) }
		}, 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, opts...)
			ctx := context.Background()
			undo := st.inject(b)
			err := b.sync.Handle(ctx, b.discovered())
			undo()
			if err == nil || domain.IsPermanent(err) {
				t.Fatalf("injected failure returned %v, want a transient error", err)
			}
			if got := b.String(`SELECT poster_path FROM movies WHERE id = ?`, b.movie.String()); got != "" {
				t.Fatalf("failed run left poster_path %q", got)
			}
			if n := b.Events("PosterSynced"); n != 0 {
				t.Fatalf("failed run emitted %d PosterSynced", n)
			}
			for range 2 {
				if err := b.sync.Handle(ctx, b.discovered()); err != nil {
					t.Fatal(err)
				}
			}
			b.doneAfter(t, st.downloads)
		})
	}
}

// TestConcurrentSyncsOfOneMovie: MovieDiscovered and MovieEnrichmentRequested of a new movie are
// separate events, so their syncs run at once, in one worker or in several (each goroutine here
// has its own Sync, as separate processes would); only one emits.
func TestConcurrentSyncsOfOneMovie(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	client := tmdb.NewClient(tmdb.Config{APIURL: b.TMDb.APIURL(), ImageURL: b.TMDb.ImageURL(), APIKey: tmdbtest.Key,
		HTTP: b.TMDb.Server.Client()})
	var wg sync.WaitGroup
	for i := range 6 {
		worker := poster.New(b.Store, b.Objects, client, b.Log)
		wg.Go(func() {
			e := b.discovered()
			if i%2 == 1 {
				e = domain.MovieEnrichmentRequested{MovieID: b.movie, ExternalMetadataID: mediatest.BladeRunner}
			}
			if err := worker.Handle(ctx, e); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := b.Events("PosterSynced"); n != 1 {
		t.Errorf("%d PosterSynced, want 1", n)
	}
	if got := b.String(`SELECT poster_path FROM movies WHERE id = ?`, b.movie.String()); got != b.key {
		t.Errorf("poster_path = %q", got)
	}
	// One worker serialises its syncs of a movie: the second finds the poster stored.
	one := setup(t)
	for range 2 {
		wg.Go(func() {
			if err := one.sync.Handle(ctx, one.discovered()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	one.done(t)
}

func TestSyncSkipsWhatIsNotToDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("movie deleted", func(t *testing.T) {
		b := setup(t)
		b.Exec(`DELETE FROM movies`)
		if err := b.sync.Handle(ctx, b.discovered()); err != nil || b.TMDb.Total() != 0 {
			t.Fatalf("deleted movie: %v, %d TMDb requests", err, b.TMDb.Total())
		}
	})
	t.Run("converted poster", func(t *testing.T) {
		b := setup(t)
		b.Exec(`UPDATE movies SET poster_path = ?`, domain.ConvertedKey(b.key))
		if err := b.sync.Handle(ctx, b.discovered()); err != nil || b.TMDb.Total() != 0 || b.Events("PosterSynced") != 0 {
			t.Fatalf("converted poster: %v, %d TMDb requests", err, b.TMDb.Total())
		}
	})
	t.Run("enrichment request for a movie with a poster", func(t *testing.T) {
		b := setup(t)
		b.Exec(`UPDATE movies SET poster_path = 'https://remote.example/p.jpg'`)
		err := b.sync.Handle(ctx, domain.MovieEnrichmentRequested{MovieID: b.movie, ExternalMetadataID: mediatest.BladeRunner})
		if err != nil || b.TMDb.Total() != 0 {
			t.Fatalf("%v, %d TMDb requests", err, b.TMDb.Total())
		}
		// Discovery replaces a poster that is not ours.
		if err := b.sync.Handle(ctx, b.discovered()); err != nil {
			t.Fatal(err)
		}
		b.done(t)
	})
	t.Run("movie TMDb does not know", func(t *testing.T) {
		b := setup(t)
		id := b.AddMovie("tt0000001", "Nobody Knows", 2000)
		if err := b.sync.Handle(ctx, domain.MovieDiscovered{MovieID: id, ExternalMetadataID: "tt0000001"}); err != nil {
			t.Fatalf("unknown movie: %v, want done", err)
		}
		if b.Events("PosterSynced") != 0 {
			t.Error("PosterSynced for a movie without poster")
		}
	})
}

// TestBadUpstreamWritesNothing: a huge image, a body that is not an image and garbage JSON each
// fail with an error of the right kind and leave no object, no poster_path and no event.
func TestBadUpstreamWritesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		serve     func(w http.ResponseWriter, r *http.Request) bool
		permanent bool
	}{
		{"50 MB image", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/t/p/") {
				return false
			}
			w.Header().Set("Content-Type", "image/jpeg")
			chunk := make([]byte, 1<<20)
			copy(chunk, tmdbtest.PosterJPEG())
			for range 50 {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
			return true
		}, true},
		{"not an image", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/t/p/") {
				return false
			}
			_, _ = w.Write([]byte("<html>gateway error</html>"))
			return true
		}, true},
		{"truncated JPEG", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/t/p/") {
				return false
			}
			_, _ = w.Write(tmdbtest.PosterJPEG()[:4])
			return true
		}, true},
		{"20,000 × 20,000 pixels", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/t/p/") {
				return false
			}
			_, _ = w.Write(pixelBomb(t))
			return true
		}, true},
		{"garbage JSON", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/3/") {
				return false
			}
			_, _ = w.Write([]byte(`{"movie_results": [`))
			return true
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.TMDb.SetOverride(tc.serve)
			err := b.sync.Handle(context.Background(), b.discovered())
			if err == nil || domain.IsPermanent(err) != tc.permanent {
				t.Fatalf("error %v: permanent = %v, want %v", err, domain.IsPermanent(err), tc.permanent)
			}
			if ok, _ := b.Images.Exists(context.Background(), b.key); ok {
				t.Error("an object was stored")
			}
			if b.String(`SELECT poster_path FROM movies`) != "" || b.Events("PosterSynced")+b.Events("ImageStored") != 0 {
				t.Error("the database was changed")
			}
		})
	}
}

// pixelBomb is a 57-byte PNG whose header claims 20,000 × 20,000 pixels (CRC fixed up).
func pixelBomb(t *testing.T) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.BigEndian.PutUint32(b[16:], 20_000)
	binary.BigEndian.PutUint32(b[20:], 20_000)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

var _ poster.Store = (*sqlite.Store)(nil)
