package image

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"moviesdiary/internal/domain"
)

// ThumbnailsName keys the thumbnails in the processed-event ledger; never rename it.
const ThumbnailsName = "image-thumbnails"

// ThumbnailsTypes are the events the thumbnails handle: every stored image (a poster sync, an
// upload, the backfill of older databases' images).
var ThumbnailsTypes = []string{domain.ImageStored{}.EventType()}

// Thumbnailer decodes an image once and returns a WebP of it at each width, aspect ratio kept.
// An input that is not an image, or is over domain.CheckImageSize's bounds, is an error (which
// no retry can fix).
type Thumbnailer func(src []byte, widths []int) ([][]byte, error)

// Thumbnails makes the thumbnails of stored images in the widths the pages show them in
// (domain.ThumbWidths), each under its deterministic key (domain.ThumbKey).
type Thumbnails struct {
	objects Objects
	make    Thumbnailer
	log     *slog.Logger
}

// NewThumbnails builds the handler.
func NewThumbnails(objects Objects, make Thumbnailer, log *slog.Logger) *Thumbnails {
	return &Thumbnails{objects: objects, make: make, log: cmp.Or(log, slog.Default())}
}

// Handle makes the thumbnails of the image the event names.
func (t *Thumbnails) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.ImageStored)
	if !ok {
		return domain.Permanent(fmt.Errorf("image thumbnails: unexpected event %s", e.EventType()))
	}
	return t.Generate(ctx, ev.Key)
}

// Generate makes the thumbnails of key's image that are not stored yet. It is idempotent and
// independent of the WebP conversion, which the same event starts:
//
//  1. each thumbnail key is probed; a thumbnail that exists (written atomically) is never made
//     again, and when all exist nothing is read;
//  2. the image is read from the original, or from its conversion when the conversion ran first
//     and deleted the original; when neither exists the image is gone (a deleted movie) and
//     there is nothing to do;
//  3. the image is decoded once, bounded, and each missing thumbnail written.
//
// A key without thumbnails (a banner, a remote URL, a thumbnail) is done at once.
func (t *Thumbnails) Generate(ctx context.Context, key string) error {
	widths := domain.ThumbWidths(key)
	if len(widths) == 0 {
		return nil
	}
	var missing []int
	for _, w := range widths {
		ok, err := t.objects.Exists(ctx, domain.ThumbKey(key, w))
		if errors.Is(err, domain.ErrInvalid) {
			t.log.InfoContext(ctx, "image thumbnails: not a stored image key; skipped", "key", key)
			return nil
		}
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	src, from, err := t.read(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	thumbs, err := t.make(src, missing)
	if err != nil {
		return domain.Permanent(fmt.Errorf("image thumbnails of %s: %w", from, err))
	}
	for i, w := range missing {
		if err := t.objects.Put(ctx, domain.ThumbKey(key, w), thumbs[i]); err != nil {
			return err
		}
	}
	return nil
}

// read returns the image key names: the original (not yet through a lossy pass) when it is
// still stored, else its WebP conversion; KindNotFound when neither is.
func (t *Thumbnails) read(ctx context.Context, key string) ([]byte, string, error) {
	source := strings.TrimSuffix(key, domain.ConvertedSuffix)
	var err error
	for _, k := range []string{source, domain.ConvertedKey(source)} {
		var data []byte
		if data, err = t.objects.Get(ctx, k); err == nil {
			return data, k, nil
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return nil, k, err
		}
	}
	return nil, key, err
}

// deleteThumbs deletes the thumbnails of key's image (a missing one is success).
func deleteThumbs(ctx context.Context, objects Objects, key string) error {
	for _, w := range domain.ThumbWidths(key) {
		err := objects.Delete(ctx, domain.ThumbKey(key, w))
		if err != nil && !errors.Is(err, domain.ErrInvalid) {
			return fmt.Errorf("delete thumbnail of %s: %w", key, err)
		}
	}
	return nil
}
