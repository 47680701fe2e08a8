package review

import (
	"context"
	"fmt"
	"strconv"

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

// ExportHeader is the CSV export's header: the original's columns, byte for byte.
var ExportHeader = []string{"title", "year", "director", "rating", "comment", "watched_at", "external_metadata_id"}

// ExportRow is one review as the export writes it, in the original's shape: a JSON object, or a
// CSV record in ExportHeader's columns. WatchedAt is the date alone.
type ExportRow struct {
	Title              string  `json:"title"`
	Year               int     `json:"year"`
	Director           *string `json:"director"`
	Rating             int     `json:"rating"`
	Comment            *string `json:"comment"`
	WatchedAt          string  `json:"watched_at"`
	ExternalMetadataID *string `json:"external_metadata_id"`
}

// NewExportRow is e as the export writes it.
func NewExportRow(e Entry) ExportRow {
	return ExportRow{Title: e.Movie.Title, Year: e.Movie.ReleaseYear, Director: e.Movie.Director, Rating: e.Review.Rating,
		Comment: e.Review.Comment, WatchedAt: e.Review.WatchedAt.UTC().Format("2006-01-02"), ExternalMetadataID: e.Movie.ExternalID}
}

// Record is the row's CSV record: an unknown year and absent values are empty.
func (r ExportRow) Record() []string {
	year := ""
	if r.Year > 0 {
		year = strconv.Itoa(r.Year)
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return []string{r.Title, year, deref(r.Director), strconv.Itoa(r.Rating), deref(r.Comment), r.WatchedAt,
		deref(r.ExternalMetadataID)}
}
