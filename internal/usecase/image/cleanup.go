package image

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"

	"moviesdiary/internal/domain"
)

// CleanupName keys the clean-up in the processed-event ledger; never rename it.
const CleanupName = "image-cleanup"

// CleanupTypes are the events the clean-up handles.
var CleanupTypes = []string{domain.MovieDeleted{}.EventType()}

// Cleanup deletes a deleted movie's poster and backdrop objects.
type Cleanup struct {
	refs    Refs
	objects Objects
	log     *slog.Logger
}

// NewCleanup builds the handler.
func NewCleanup(refs Refs, objects Objects, log *slog.Logger) *Cleanup {
	return &Cleanup{refs: refs, objects: objects, log: cmp.Or(log, slog.Default())}
}

// Handle deletes the poster the event names, the poster and backdrop keys derived from the movie
// id, and the WebP conversion and the thumbnails of each: whichever of them exist (a conversion may have run
// or not, a sync may have raced the deletion). A missing object is success, so the clean-up can
// run any number of times; an object something refers to again (the movie was logged anew) is
// kept, and so are its thumbnails.
func (c *Cleanup) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieDeleted)
	if !ok {
		return domain.Permanent(fmt.Errorf("image cleanup: unexpected event %s", e.EventType()))
	}
	keys := []string{domain.PosterKey(ev.MovieID)}
	if p := ev.PosterPath; p != nil && *p != keys[0] && !domain.IsConvertedKey(*p) {
		keys = append(keys, *p)
	}
	if p := ev.PosterPath; p != nil && domain.IsConvertedKey(*p) && *p != domain.ConvertedKey(keys[0]) {
		keys = append(keys, strings.TrimSuffix(*p, domain.ConvertedSuffix))
	}
	// The backdrop's key derives from the movie id too.
	keys = append(keys, domain.BackdropKey(ev.MovieID))
	for _, k := range keys {
		free := true
		for _, key := range []string{domain.ConvertedKey(k), k} {
			unused, err := deleteUnused(ctx, c.refs, c.objects, key, c.log)
			if err != nil {
				return err
			}
			free = free && unused
		}
		// The thumbnails go with the image, unless it is in use again.
		if free {
			if err := deleteThumbs(ctx, c.objects, k); err != nil {
				return err
			}
		}
	}
	return nil
}
