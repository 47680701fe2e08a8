package poster_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/poster"
)

// Blade Runner's images in the fake TMDb's fixture: its backdrop and the photos of its billed
// cast (Edward James Olmos has none).
const backdropPath = "/eIi3klFf7mp3oL5EEF4mLIDs26r.jpg"

var castPhotos = map[int64]string{
	3:   "/zVnHagUvXkR2StdOtquEwsiwSVt.jpg", // Harrison Ford
	585: "/8ahRgCUpp6TAIj8rVo4MjrjpqPB.jpg", // Rutger Hauer
	586: "/4zgkRFQruIlaJ4JakNZLoKJ70fH.jpg", // Sean Young
}

type imagesBundle struct {
	*mediatest.Env
	images *poster.Images
	movie  uuid.UUID
}

// setupImages is an enriched Blade Runner: the enrichment ran against the fake TMDb, so the
// movie has its backdrop's path and its cast their photos' paths, and MovieImagesRequested is in
// the outbox.
func setupImages(t *testing.T, opts ...mediatest.Option) *imagesBundle {
	t.Helper()
	env := mediatest.New(t, opts...)
	client := tmdb.NewClient(tmdb.Config{APIURL: env.TMDb.APIURL(), ImageURL: env.TMDb.ImageURL(), APIKey: tmdbtest.Key,
		HTTP: env.TMDb.Server.Client(), Timeout: 2 * time.Second, MaxImageBytes: 1 << 20, RequestsPerSecond: -1})
	id := env.AddMovie(mediatest.BladeRunner, "Blade Runner", 1982)
	enrich := enrichment.NewMovies(env.Store, tmdb.Enrichment{C: client}, nil, env.Log)
	if err := enrich.Handle(context.Background(), domain.MovieEnrichmentRequested{MovieID: id, ExternalMetadataID: mediatest.BladeRunner}); err != nil {
		t.Fatal(err)
	}
	if n := env.Events(domain.MovieImagesRequested{}.EventType()); n != 1 {
		t.Fatalf("%d MovieImagesRequested after the enrichment, want 1", n)
	}
	return &imagesBundle{Env: env, images: poster.NewImages(env.Store, env.Objects, client, env.Log), movie: id}
}

func (b *imagesBundle) handle(t *testing.T) error {
	t.Helper()
	return b.images.Handle(context.Background(), domain.MovieImagesRequested{MovieID: b.movie})
}

// imageStored counts the ImageStored events of key.
func (b *imagesBundle) imageStored(key string) int {
	return b.Int(`SELECT count(*) FROM event_queue WHERE event_type = 'ImageStored' AND json_extract(payload, '$.data.key') = ?`, key)
}

// checkStored checks that the image TMDb serves at path in size is stored under key, downloaded
// and written once, that the row column names it, and that one ImageStored says so.
func (b *imagesBundle) checkStored(t *testing.T, what, size, path, key, column string) {
	t.Helper()
	if got := b.String(column); got != key {
		t.Errorf("%s: key %q, want %q", what, got, key)
	}
	if ok, _ := b.Images.Exists(context.Background(), key); !ok {
		t.Errorf("%s: object %s missing", what, key)
	}
	if n := b.Objects.Puts(key); n != 1 {
		t.Errorf("%s: written %d times, want once", what, n)
	}
	if n := b.TMDb.Count("/t/p/" + size + path); n != 1 {
		t.Errorf("%s: downloaded %d times, want once", what, n)
	}
	if n := b.imageStored(key); n != 1 {
		t.Errorf("%s: %d ImageStored, want 1", what, n)
	}
}

func (b *imagesBundle) checkBackdrop(t *testing.T) {
	t.Helper()
	b.checkStored(t, "backdrop", poster.BackdropSize, backdropPath, domain.BackdropKey(b.movie),
		`SELECT backdrop_key FROM movies WHERE id = '`+b.movie.String()+`'`)
}

func (b *imagesBundle) checkPhoto(t *testing.T, tmdbID int64) {
	t.Helper()
	pid := enrichment.PersonID(tmdbID)
	b.checkStored(t, "photo of person "+castPhotos[tmdbID], poster.PhotoSize, castPhotos[tmdbID], domain.PersonPhotoKey(pid),
		`SELECT photo_key FROM people WHERE id = '`+pid.String()+`'`)
}

// TestMovieImagesStoredOnce: the backdrop and every cast photo TMDb has are downloaded, stored
// and announced once; a replay, and a second movie request, fetch and emit nothing more.
func TestMovieImagesStoredOnce(t *testing.T) {
	t.Parallel()
	b := setupImages(t)
	for range 3 {
		if err := b.handle(t); err != nil {
			t.Fatal(err)
		}
	}
	b.checkBackdrop(t)
	for id := range castPhotos {
		b.checkPhoto(t, id)
	}
	if got := b.String(`SELECT photo_key FROM people WHERE id = ?`, enrichment.PersonID(587).String()); got != "" {
		t.Errorf("a cast member without a TMDb photo has photo_key %q", got)
	}
	if n := b.Events("ImageStored"); n != 1+len(castPhotos) {
		t.Errorf("%d ImageStored in all, want %d", n, 1+len(castPhotos))
	}
	// The API keeps TMDb's paths: the profile document and the person's profile_path.
	if doc := b.String(`SELECT profile FROM movie_profiles`); !strings.Contains(doc, `"backdrop_path":"`+backdropPath+`"`) ||
		!strings.Contains(doc, `"profile_path":"`+castPhotos[3]+`"`) {
		t.Errorf("profile document lost TMDb's paths: %s", doc)
	}
	if got := b.String(`SELECT profile_path FROM people WHERE id = ?`, enrichment.PersonID(3).String()); got != castPhotos[3] {
		t.Errorf("profile_path %q, want TMDb's %q", got, castPhotos[3])
	}
}

// TestMovieImagesKilledBetweenSteps: a crash before the object is written, after it is written
// and in the database's transaction each leave a state the next delivery finishes, with no
// second download of an image already stored and one ImageStored each.
func TestMovieImagesKilledBetweenSteps(t *testing.T) {
	t.Parallel()
	steps := []struct {
		name      string
		inject    func(b *imagesBundle) (undo func())
		downloads int // of the backdrop
	}{
		{"before writing the object", func(b *imagesBundle) func() {
			b.Objects.FailAt("put")
			return func() { b.Objects.FailAt("") }
		}, 2},
		{"after writing the object, before the database", func(b *imagesBundle) func() {
			b.Objects.FailAt("after-put")
			return func() { b.Objects.FailAt("") }
		}, 1},
		{"in the database transaction", func(b *imagesBundle) func() {
			b.FailEnqueue.Store(true)
			return func() { b.FailEnqueue.Store(false) }
		}, 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setupImages(t)
			undo := st.inject(b)
			err := b.handle(t)
			undo()
			if err == nil || domain.IsPermanent(err) {
				t.Fatalf("injected failure: error %v, want a transient one", err)
			}
			if err := b.handle(t); err != nil {
				t.Fatal(err)
			}
			if err := b.handle(t); err != nil {
				t.Fatal(err)
			}
			if n := b.TMDb.Count("/t/p/" + poster.BackdropSize + backdropPath); n != st.downloads {
				t.Errorf("backdrop downloaded %d times, want %d", n, st.downloads)
			}
			if n := b.imageStored(domain.BackdropKey(b.movie)); n != 1 {
				t.Errorf("%d ImageStored for the backdrop, want 1", n)
			}
			for id := range castPhotos {
				b.checkPhoto(t, id)
			}
		})
	}
}

// TestMovieImagesSkipABadImage: a backdrop that is not an image, or claims 20,000 × 20,000
// pixels, is skipped without failing the job: nothing is stored for it, and the cast's photos
// are stored all the same.
func TestMovieImagesSkipABadImage(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, w http.ResponseWriter){
		"not an image": func(t *testing.T, w http.ResponseWriter) {
			_, _ = w.Write([]byte("<html>gateway error</html>"))
		},
		"20,000 × 20,000 pixels": func(t *testing.T, w http.ResponseWriter) { _, _ = w.Write(pixelBomb(t)) },
		"truncated JPEG":         func(t *testing.T, w http.ResponseWriter) { _, _ = w.Write(tmdbtest.PosterJPEG()[:4]) },
	}
	for name, serve := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupImages(t)
			b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
				if !strings.HasSuffix(r.URL.Path, backdropPath) {
					return false
				}
				serve(t, w)
				return true
			})
			if err := b.handle(t); err != nil {
				t.Fatalf("a bad backdrop failed the job: %v", err)
			}
			key := domain.BackdropKey(b.movie)
			if ok, _ := b.Images.Exists(context.Background(), key); ok {
				t.Error("the bad backdrop was stored")
			}
			if got := b.String(`SELECT backdrop_key FROM movies`); got != "" || b.imageStored(key) != 0 {
				t.Errorf("backdrop_key %q, %d ImageStored: the database was changed", got, b.imageStored(key))
			}
			for id := range castPhotos {
				b.checkPhoto(t, id)
			}
		})
	}
}

// TestMovieImagesTransientFailureIsRetried: the CDN failing is a transient error; the retry
// stores everything, each image once.
func TestMovieImagesTransientFailureIsRetried(t *testing.T) {
	t.Parallel()
	b := setupImages(t)
	b.TMDb.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, castPhotos[585]) {
			return false
		}
		w.WriteHeader(http.StatusBadGateway)
		return true
	})
	if err := b.handle(t); err == nil || domain.IsPermanent(err) {
		t.Fatalf("error %v, want a transient one", err)
	}
	b.TMDb.SetOverride(nil)
	if err := b.handle(t); err != nil {
		t.Fatal(err)
	}
	b.checkBackdrop(t)
	if n := b.Events("ImageStored"); n != 1+len(castPhotos) {
		t.Errorf("%d ImageStored in all, want %d", n, 1+len(castPhotos))
	}
}

// TestMovieImagesSkipAPhotoStoredAlready: a person whose photo is stored (from another movie)
// is not fetched again, and one whose object is stored but not yet recorded (a crash between
// the two) is recorded without a download.
func TestMovieImagesSkipAPhotoStoredAlready(t *testing.T) {
	t.Parallel()
	b := setupImages(t)
	ford, hauer := enrichment.PersonID(3), enrichment.PersonID(585)
	b.Exec(`UPDATE people SET photo_key = ? WHERE id = ?`, domain.ConvertedKey(domain.PersonPhotoKey(ford)), ford.String())
	if err := b.Objects.Store.Put(context.Background(), domain.PersonPhotoKey(hauer), tmdbtest.PosterJPEG()); err != nil {
		t.Fatal(err)
	}
	if err := b.handle(t); err != nil {
		t.Fatal(err)
	}
	if n := b.TMDb.Count("/t/p/" + poster.PhotoSize + castPhotos[3]); n != 0 {
		t.Errorf("a stored photo was downloaded %d times", n)
	}
	if n := b.imageStored(domain.PersonPhotoKey(ford)) + b.imageStored(domain.ConvertedKey(domain.PersonPhotoKey(ford))); n != 0 {
		t.Errorf("%d ImageStored for a photo stored before", n)
	}
	if n := b.TMDb.Count("/t/p/" + poster.PhotoSize + castPhotos[585]); n != 0 {
		t.Errorf("an object already written was downloaded again (%d)", n)
	}
	if got := b.String(`SELECT photo_key FROM people WHERE id = ?`, hauer.String()); got != domain.PersonPhotoKey(hauer) {
		t.Errorf("photo_key %q, want %q", got, domain.PersonPhotoKey(hauer))
	}
	if n := b.imageStored(domain.PersonPhotoKey(hauer)); n != 1 {
		t.Errorf("%d ImageStored for the photo recorded now, want 1", n)
	}
	b.checkPhoto(t, 586)
	b.checkBackdrop(t)
}

// TestMovieImagesOfAMovieGone: a movie deleted since the request is left alone.
func TestMovieImagesOfAMovieGone(t *testing.T) {
	t.Parallel()
	b := setupImages(t)
	b.Exec(`DELETE FROM movies WHERE id = ?`, b.movie.String())
	if err := b.handle(t); err != nil {
		t.Fatal(err)
	}
	if n := b.TMDb.Count("/t/p/" + poster.BackdropSize + backdropPath); n != 0 {
		t.Errorf("downloaded the backdrop of a deleted movie %d times", n)
	}
}

var _ poster.ImageStore = (*sqlite.Store)(nil)
