package poster

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// ImagesName keys the movie images handler in the processed-event ledger; never rename it.
const ImagesName = "movie-images"

// ImagesTypes are the events the movie images handler handles.
var ImagesTypes = []string{domain.MovieImagesRequested{}.EventType()}

// The TMDb sizes the movie images are fetched in: the backdrop as wide as a page is (its
// thumbnail, w780, is what the movie page shows), a photo as wide as its thumbnail.
const (
	BackdropSize = "w1280"
	PhotoSize    = "w185"
)

// ImageStore is the database side of the movie images handler.
type ImageStore interface {
	// MovieImages is KindNotFound when the movie is gone.
	MovieImages(ctx context.Context, id uuid.UUID) (domain.MovieImages, error)
	// SetBackdrop and SetPersonPhoto point the row at key and enqueue ImageStored{key} in the same
	// transaction, unless the row is gone or already points at key or its conversion.
	SetBackdrop(ctx context.Context, movieID uuid.UUID, key string) (Outcome, error)
	SetPersonPhoto(ctx context.Context, personID uuid.UUID, key string) (Outcome, error)
}

// ImageSource downloads an image from the metadata provider's CDN.
type ImageSource interface {
	Image(ctx context.Context, size, path string) ([]byte, error)
}

// Images is the movie images handler: it stores a movie's backdrop and its billed cast's photos.
type Images struct {
	store   ImageStore
	objects Objects
	source  ImageSource
	log     *slog.Logger
}

// NewImages builds the handler.
func NewImages(store ImageStore, objects Objects, source ImageSource, log *slog.Logger) *Images {
	return &Images{store: store, objects: objects, source: source, log: cmp.Or(log, slog.Default())}
}

// Handle stores the backdrop of the event's movie under domain.BackdropKey and each cast
// member's photo under domain.PersonPhotoKey, as the poster sync stores a poster: an image whose
// row already points at its key is skipped (nothing fetched, nothing emitted, so a replay does
// nothing), one whose object is stored already is not downloaded again (a crash after the write),
// and the row is pointed at the key with ImageStored in one transaction.
//
// An image TMDb cannot give (not an image, over the byte or pixel bounds, a malformed path) is
// logged and skipped: no retry would fix it, and it must not cost the movie its other images. A
// transient failure returns at once; the retry skips what was stored.
//
// Two movies sharing an actor may download the photo at the same time on two workers; the
// transaction still lets only one of them emit ImageStored.
func (h *Images) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieImagesRequested)
	if !ok {
		return domain.Permanent(fmt.Errorf("movie images: unexpected event %s", e.EventType()))
	}
	imgs, err := h.store.MovieImages(ctx, ev.MovieID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // deleted (or merged) since: nothing to show it on
	}
	if err != nil {
		return err
	}
	if imgs.BackdropPath != "" && imgs.BackdropKey == nil {
		err := h.storeImage(ctx, BackdropSize, imgs.BackdropPath, domain.BackdropKey(ev.MovieID),
			func(key string) (Outcome, error) { return h.store.SetBackdrop(ctx, ev.MovieID, key) })
		if err != nil {
			return err
		}
	}
	for _, c := range imgs.Cast {
		if c.ProfilePath == "" || c.PhotoKey != nil {
			continue
		}
		err := h.storeImage(ctx, PhotoSize, c.ProfilePath, domain.PersonPhotoKey(c.PersonID),
			func(key string) (Outcome, error) { return h.store.SetPersonPhoto(ctx, c.PersonID, key) })
		if err != nil {
			return err
		}
	}
	return nil
}

// storeImage stores the image at TMDb's path in size under key, unless its object is there already,
// and points its row at it with set. A permanent failure of this image is logged and is nil.
func (h *Images) storeImage(ctx context.Context, size, path, key string, set func(key string) (Outcome, error)) error {
	stored, err := h.objects.Exists(ctx, key)
	if err != nil {
		return err
	}
	if !stored {
		err := h.download(ctx, size, path, key)
		if domain.IsPermanent(err) {
			h.log.WarnContext(ctx, "movie images: image skipped", "key", key, "path", path, "error", err)
			return nil
		}
		if err != nil {
			return err
		}
	}
	outcome, err := set(key)
	if err != nil {
		return err
	}
	if outcome == AlreadyConverted || outcome == Gone {
		// Converted since by another run, or the row is gone: the object under key is a stray.
		if err := h.objects.Delete(ctx, key); err != nil {
			h.log.WarnContext(ctx, "movie images: stray image not deleted", "key", key, "error", err)
		}
	}
	return nil
}

// download fetches one image into key after checking its header: an image that is not one or is
// over the pixel bounds is a permanent error, before anything is stored or decoded.
func (h *Images) download(ctx context.Context, size, path, key string) error {
	data, err := h.source.Image(ctx, size, path)
	if err != nil {
		return err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return domain.Permanent(fmt.Errorf("movie images: %s is not a decodable image: %w", path, err))
	}
	if err := domain.CheckImageSize(cfg.Width, cfg.Height); err != nil {
		return domain.Permanent(fmt.Errorf("movie images: %s: %w", path, err))
	}
	return h.objects.Put(ctx, key, data)
}
