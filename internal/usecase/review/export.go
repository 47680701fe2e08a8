package review

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// ExportBatch is how many reviews one read of an export fetches: the export holds at most this
// many in memory however long the diary is, and no read transaction outlives one batch.
const ExportBatch = 500

// ExportCursor is where the next export batch starts: after the review with this stored
// watched_at key and id.
type ExportCursor struct {
	WatchedAt string
	ID        uuid.UUID
}

// ExportStore reads a user's own reviews in (watched_at, id) order, a batch at a time.
type ExportStore interface {
	// DiaryExportBatch returns up to limit of the user's reviews after cursor (nil: from the
	// first), oldest first, and the cursor after the last one returned.
	DiaryExportBatch(ctx context.Context, user uuid.UUID, after *ExportCursor, limit int) ([]Entry, *ExportCursor, error)
}

// Exporter streams a user's whole diary (GET /api/v1/diary/export).
type Exporter struct{ store ExportStore }

// NewExporter builds the exporter.
func NewExporter(store ExportStore) *Exporter { return &Exporter{store: store} }

// Export calls yield with every review of user, oldest viewing first, reading ExportBatch at a
// time; it stops at the first error, from the store or from yield.
func (e *Exporter) Export(ctx context.Context, user uuid.UUID, yield func(Entry) error) error {
	var after *ExportCursor
	for {
		batch, next, err := e.store.DiaryExportBatch(ctx, user, after, ExportBatch)
		if err != nil {
			return fmt.Errorf("export diary: %w", err)
		}
		for _, en := range batch {
			if err := yield(en); err != nil {
				return err
			}
		}
		if len(batch) < ExportBatch || next == nil {
			return nil
		}
		after = next
	}
}
