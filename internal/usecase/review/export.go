package review

import (
	"context"
	"fmt"
	"strconv"

	"moviesdiary/internal/domain"

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

// ExportHeader is the CSV export's header: the original's columns, byte for byte, then this
// server's: the rating at its precision (4.5 for four and a half stars, whose rating is 5),
// rewatch, the watch medium and the time of day (UTC) the date alone leaves out. The importer
// recognises the file (importer.KindDiaryExport), so a diary goes out and back in whole.
var ExportHeader = []string{"title", "year", "director", "rating", "comment", "watched_at", "external_metadata_id",
	"rating_precise", "rewatch", "watch_medium", "watched_time"}

// ExportRow is one review as the export writes it, in the original's shape and this server's
// fields after it: a JSON object, or a CSV record in ExportHeader's columns. WatchedAt is the
// date alone, WatchedTime the time of day.
type ExportRow struct {
	Title              string              `json:"title"`
	Year               int                 `json:"year"`
	Director           *string             `json:"director"`
	Rating             int                 `json:"rating"`
	Comment            *string             `json:"comment"`
	WatchedAt          string              `json:"watched_at"`
	ExternalMetadataID *string             `json:"external_metadata_id"`
	RatingPrecise      float64             `json:"rating_precise"`
	Rewatch            bool                `json:"rewatch"`
	WatchMedium        *domain.WatchMedium `json:"watch_medium"`
	WatchedTime        string              `json:"watched_time"`
}

// NewExportRow is e as the export writes it.
func NewExportRow(e Entry) ExportRow {
	precise := float64(e.Review.Rating)
	if e.Review.RatingPrecise != nil {
		precise = *e.Review.RatingPrecise
	}
	at := e.Review.WatchedAt.UTC()
	return ExportRow{Title: e.Movie.Title, Year: e.Movie.ReleaseYear, Director: e.Movie.Director, Rating: e.Review.Rating,
		Comment: e.Review.Comment, WatchedAt: at.Format("2006-01-02"), ExternalMetadataID: e.Movie.ExternalID,
		RatingPrecise: precise, Rewatch: e.Review.Rewatch, WatchMedium: e.Review.WatchMedium, WatchedTime: at.Format("15:04:05")}
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
	medium := ""
	if r.WatchMedium != nil {
		medium = string(*r.WatchMedium)
	}
	return []string{r.Title, year, deref(r.Director), strconv.Itoa(r.Rating), deref(r.Comment), r.WatchedAt,
		deref(r.ExternalMetadataID), strconv.FormatFloat(r.RatingPrecise, 'f', -1, 64), strconv.FormatBool(r.Rewatch),
		medium, r.WatchedTime}
}
