package image

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"moviesdiary/internal/domain"
)

// CleanupName keys the clean-up in the processed-event ledger; never rename it.
const CleanupName = "image-cleanup"

// CleanupTypes are the events the clean-up handles.
var CleanupTypes = []string{domain.MovieDeleted{}.EventType()}

// Cleanup deletes a deleted movie's poster objects.
type Cleanup struct {
	refs    Refs
	objects Objects
	log     *slog.Logger
}

// NewCleanup builds the handler.
func NewCleanup(refs Refs, objects Objects, log *slog.Logger) *Cleanup {
	return &Cleanup{refs: refs, objects: objects, log: cmp.Or(log, slog.Default())}
}

// Handle deletes the poster the event names, the poster key derived from the movie id and the
// WebP conversion of each: whichever of them exist (a conversion may have run or not, a sync may
// have raced the deletion). A missing object is success, so the clean-up can run any number of
// times; an object something refers to again (the movie was logged anew) is kept.
func (c *Cleanup) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.MovieDeleted)
	if !ok {
		return domain.Permanent(fmt.Errorf("image cleanup: unexpected event %s", e.EventType()))
	}
	keys := []string{domain.PosterKey(ev.MovieID)}
	if p := ev.PosterPath; p != nil && *p != keys[0] && !domain.IsConvertedKey(*p) {
		keys = append(keys, *p)
	}
	for _, k := range keys {
		for _, key := range []string{domain.ConvertedKey(k), k} {
			if err := deleteUnused(ctx, c.refs, c.objects, key, c.log); err != nil {
				return err
			}
		}
	}
	if p := ev.PosterPath; p != nil && domain.IsConvertedKey(*p) {
		return deleteUnused(ctx, c.refs, c.objects, *p, c.log)
	}
	return nil
}
