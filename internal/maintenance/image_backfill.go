package maintenance

import (
	"cmp"
	"context"
	"fmt"
)

// ImageBackfillBatchDefault is how many images one transaction of the backfill requests.
const ImageBackfillBatchDefault = 200

// ImageBackfill requests the worker's image handlers for up to limit more stored images (an
// ImageStored each), moving a persistent cursor, in one transaction, and says whether every
// image has been requested (*sqlite.Store).
type ImageBackfill interface {
	RequestImageBackfill(ctx context.Context, limit int) (n int, done bool, err error)
}

// ImageBackfiller gives the images of a database older than thumbnails theirs: it walks every
// stored poster, avatar and banner once, enqueueing ImageStored for each, and the thumbnails
// handler (idempotent: a thumbnail that exists is not made again) does the rest. The walk's
// cursor is in the database, so a restart resumes it and, once done, no worker walks again.
type ImageBackfiller struct {
	job
	request func(ctx context.Context, limit int) (n int, done bool, err error)
	what    string
	batch   int
	done    bool
}

// NewImageBackfiller builds the backfill; batch bounds one transaction (default
// ImageBackfillBatchDefault).
func NewImageBackfiller(store ImageBackfill, batch int, cfg JobConfig) *ImageBackfiller {
	return &ImageBackfiller{job: newJob("image-backfill", cfg), request: store.RequestImageBackfill,
		what: "images requested for thumbnails", batch: cmp.Or(batch, ImageBackfillBatchDefault)}
}

// MovieImagesBackfill requests MovieImagesRequested for up to limit more enriched movies, moving
// a persistent cursor, in one transaction, and says whether every movie has been requested.
type MovieImagesBackfill interface {
	RequestMovieImagesBackfill(ctx context.Context, limit int) (n int, done bool, err error)
}

// NewMovieImagesBackfiller gives the movies enriched before backdrops and cast photos were
// stored theirs: one MovieImagesRequested per enriched movie, once (the handler fetches only
// what is missing), the same walk as the thumbnails'.
func NewMovieImagesBackfiller(store MovieImagesBackfill, batch int, cfg JobConfig) *ImageBackfiller {
	return &ImageBackfiller{job: newJob("movie-images-backfill", cfg), request: store.RequestMovieImagesBackfill,
		what: "movies requested for backdrops and cast photos", batch: cmp.Or(batch, ImageBackfillBatchDefault)}
}

// RunOnce requests batches until the backfill is done; after that it asks nothing of the
// database in this process.
func (b *ImageBackfiller) RunOnce(ctx context.Context) error {
	var total int64
	for !b.done {
		var n int
		err := b.query(ctx, func(ctx context.Context) (err error) {
			n, b.done, err = b.request(ctx, b.batch)
			return err
		})
		if err != nil {
			b.report(ctx, b.what, total)
			return fmt.Errorf("backfill (%s): %w", b.what, err)
		}
		total += int64(n)
	}
	b.report(ctx, b.what, total)
	return nil
}
