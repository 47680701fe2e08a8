package image

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"moviesdiary/internal/domain"
)

// ConversionName keys the conversion in the processed-event ledger; never rename it.
const ConversionName = "image-conversion"

// ConversionTypes are the events the conversion handles.
var ConversionTypes = []string{domain.ImageStored{}.EventType()}

// Encoder re-encodes an image (JPEG, PNG or WebP) as WebP. An input that is not a decodable
// image is a permanent error.
type Encoder func(src []byte) ([]byte, error)

// Conversion converts stored images to WebP.
type Conversion struct {
	refs    Refs
	objects Objects
	encode  Encoder
	log     *slog.Logger
}

// NewConversion builds the handler.
func NewConversion(refs Refs, objects Objects, encode Encoder, log *slog.Logger) *Conversion {
	return &Conversion{refs: refs, objects: objects, encode: encode, log: cmp.Or(log, slog.Default())}
}

// Handle converts the image under the event's key to key.webp, points the database at it and
// deletes the original. The order makes every crash recoverable and every re-run harmless:
//
//  1. probe the exact target key: if it exists the encoding is done (it was written atomically),
//     so neither the original is read nor the target written again;
//  2. otherwise read the original — missing with no target means nothing is left to convert (a
//     deleted movie) — encode it and store the target;
//  3. swap the references from the original to the target (a no-op the second time);
//  4. delete the original, unless something still refers to it.
func (c *Conversion) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.ImageStored)
	if !ok {
		return domain.Permanent(fmt.Errorf("image conversion: unexpected event %s", e.EventType()))
	}
	key := ev.Key
	if domain.IsConvertedKey(key) {
		return nil
	}
	target := domain.ConvertedKey(key)
	converted, err := c.objects.Exists(ctx, target)
	if errors.Is(err, domain.ErrInvalid) {
		c.log.InfoContext(ctx, "image conversion: not a stored image key; skipped", "key", key)
		return nil
	}
	if err != nil {
		return err
	}
	if !converted {
		src, err := c.objects.Get(ctx, key)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		out, err := c.encode(src)
		if err != nil {
			return domain.Permanent(fmt.Errorf("image conversion of %s: %w", key, err))
		}
		if err := c.objects.Put(ctx, target, out); err != nil {
			return err
		}
	}
	if _, err := c.refs.SwapImageKey(ctx, key, target); err != nil {
		return err
	}
	_, err = deleteUnused(ctx, c.refs, c.objects, key, c.log)
	return err
}
