// Package poster is the worker's poster sync: it fetches a movie's poster from the metadata
// provider, stores it under a key derived from the movie id and points the movie at it.
package poster

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decoders DecodeConfig checks a download with
	_ "image/png"
	"log/slog"
	"sync"

	"github.com/google/uuid"
	_ "golang.org/x/image/webp"

	"moviesdiary/internal/domain"
)

// Name keys the poster sync in the processed-event ledger; never rename it.
const Name = "poster-sync"

// Types are the events the sync handles.
var Types = []string{domain.MovieDiscovered{}.EventType(), domain.MovieEnrichmentRequested{}.EventType()}

// Size is the TMDb image size posters are fetched in.
const Size = "w500"

// Outcome is what SetPoster found and did.
type Outcome int

// The outcomes of SetPoster.
const (
	// Set: the movie now points at the key; PosterSynced and ImageStored are in the outbox.
	Set Outcome = iota + 1
	// AlreadySet: the movie already pointed at the key; nothing was written.
	AlreadySet
	// AlreadyConverted: the movie points at the key's conversion; nothing was written.
	AlreadyConverted
	// MovieGone: the movie no longer exists; nothing was written.
	MovieGone
)

// Gone is MovieGone for any row an image key is set on (a movie, a person): it no longer exists.
const Gone = MovieGone

// Store is the database side of the sync.
type Store interface {
	MovieByID(ctx context.Context, id uuid.UUID) (domain.Movie, error)
	// SetPoster points the movie at key and enqueues PosterSynced and ImageStored{key} in the same
	// transaction, unless the movie is gone or already points at key or its conversion.
	SetPoster(ctx context.Context, movieID uuid.UUID, key string) (Outcome, error)
}

// Objects is the image storage.
type Objects interface {
	Exists(ctx context.Context, key string) (bool, error)
	Put(ctx context.Context, key string, data []byte) error
	Delete(ctx context.Context, key string) error
}

// Source is the metadata provider's poster lookup and image download.
type Source interface {
	// PosterPath is the provider's path of the poster, "" when it has none; an unknown movie is
	// an error matching domain.ErrNotFound.
	PosterPath(ctx context.Context, externalID string) (string, error)
	Image(ctx context.Context, size, path string) ([]byte, error)
}

// Sync is the poster sync handler.
type Sync struct {
	store   Store
	objects Objects
	source  Source
	log     *slog.Logger
	// locks serialises this process's syncs of one movie: a new movie's MovieDiscovered and
	// MovieEnrichmentRequested arrive together, and the second should find the first's poster
	// instead of downloading it again. Across processes the transaction still decides alone.
	mu    sync.Mutex
	locks map[uuid.UUID]*movieLock
}

type movieLock struct {
	sync.Mutex
	users int
}

// lock takes the movie's lock and returns its release.
func (s *Sync) lock(id uuid.UUID) func() {
	s.mu.Lock()
	l := s.locks[id]
	if l == nil {
		l = &movieLock{}
		s.locks[id] = l
	}
	l.users++
	s.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		s.mu.Lock()
		if l.users--; l.users == 0 {
			delete(s.locks, id)
		}
		s.mu.Unlock()
	}
}

// New builds the handler.
func New(store Store, objects Objects, source Source, log *slog.Logger) *Sync {
	return &Sync{store: store, objects: objects, source: source, log: cmp.Or(log, slog.Default()),
		locks: map[uuid.UUID]*movieLock{}}
}

// Handle syncs the poster of the event's movie. Each step is safe to repeat and a crash between
// any two leaves a state the next delivery finishes:
//
//  1. a movie that already points at its poster key (or the conversion) is done: nothing is
//     fetched, written or emitted, so a replay emits no second PosterSynced;
//  2. the image is downloaded only while the key holds no object, and written atomically;
//  3. the movie is pointed at the key with PosterSynced and ImageStored in one transaction.
//
// MovieEnrichmentRequested syncs only a movie without any poster; MovieDiscovered also replaces
// a poster that is not ours (a remote URL).
func (s *Sync) Handle(ctx context.Context, e domain.Event) error {
	var (
		id            uuid.UUID
		ext           string
		onlyIfMissing bool
	)
	switch ev := e.(type) {
	case domain.MovieDiscovered:
		id, ext = ev.MovieID, ev.ExternalMetadataID
	case domain.MovieEnrichmentRequested:
		id, ext, onlyIfMissing = ev.MovieID, ev.ExternalMetadataID, true
	default:
		return domain.Permanent(fmt.Errorf("poster sync: unexpected event %s", e.EventType()))
	}
	defer s.lock(id)()
	m, err := s.store.MovieByID(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // deleted since: nothing to sync
	}
	if err != nil {
		return err
	}
	key := domain.PosterKey(id)
	if p := m.PosterPath; p != nil && (*p == key || *p == domain.ConvertedKey(key) || onlyIfMissing) {
		return nil
	}
	stored, err := s.objects.Exists(ctx, key)
	if err != nil {
		return err
	}
	if !stored {
		done, err := s.download(ctx, ext, key)
		if err != nil || done {
			return err
		}
	}
	outcome, err := s.store.SetPoster(ctx, id, key)
	if err != nil {
		return err
	}
	switch outcome {
	case AlreadyConverted, MovieGone:
		// Another sync finished first and the poster was converted since, or the movie was
		// deleted: the object under key is a stray copy. (AlreadySet keeps it: it is in use.)
		if err := s.objects.Delete(ctx, key); err != nil {
			s.log.WarnContext(ctx, "poster sync: stray poster not deleted", "key", key, "error", err)
		}
	}
	return nil
}

// download fetches the poster into key; done means there is nothing to store (no poster, or a
// movie the provider does not know).
func (s *Sync) download(ctx context.Context, ext, key string) (done bool, err error) {
	path, err := s.source.PosterPath(ctx, ext)
	if errors.Is(err, domain.ErrNotFound) {
		s.log.InfoContext(ctx, "poster sync: the provider does not know the movie", "external_id", ext)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if path == "" {
		return true, nil
	}
	data, err := s.source.Image(ctx, Size, path)
	if err != nil {
		return false, err
	}
	// Only the header is read: a poster over the bounds is refused before anything is stored or
	// decoded, and no retry can fix it (the same download would come back).
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return false, domain.Permanent(fmt.Errorf("poster sync: %s is not a decodable image: %w", path, err))
	}
	if err := domain.CheckImageSize(cfg.Width, cfg.Height); err != nil {
		return false, domain.Permanent(fmt.Errorf("poster sync: %s: %w", path, err))
	}
	return false, s.objects.Put(ctx, key, data)
}
