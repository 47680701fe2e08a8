package importer

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Preview statuses of a row.
const (
	StatusValid     = "valid"
	StatusDuplicate = "duplicate"
	StatusInvalid   = "invalid"
)

// PreviewRow is one row of the preview: valid or duplicate with what it would write, or
// invalid with every reason.
type PreviewRow struct {
	Index     int
	Status    string
	Candidate Candidate
	Errors    []string
	// Values are the row's own cells by the name of the field each is mapped onto (the first non-empty one), as the
	// file has them: what an invalid row shows beside its errors.
	Values map[string]string // by field name
}

// pageSize is how many stored rows one read returns while streaming a session.
const pageSize = 1000

// Preview reads every row of a session through its mapping and hands each to emit, in order,
// so a large file previews in bounded memory. A duplicate is a row whose movie the user
// already reviewed on that day (watchlist: already has on the watchlist), or that repeats an
// earlier row of the file. Movies are matched without asking TMDb: an external id names its
// movie, manual fields match on title, year (and director).
func (s *Service) Preview(ctx context.Context, userID, id uuid.UUID, emit func(PreviewRow) error) error {
	sess, err := s.Get(ctx, userID, id)
	if err != nil {
		return err
	}
	if sess.Mappings == nil {
		return domain.Invalid("the session has no mapping yet: PUT …/mapping first")
	}
	m, err := compile(sess.Columns, sess.Mappings, sess.Target)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	after := -1
	for {
		rows, err := s.store.ImportRows(ctx, sess.ID, after, pageSize)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		for _, r := range rows {
			after = r.Index
			pr, err := s.previewRow(ctx, sess, m, r, seen)
			if err != nil {
				return err
			}
			if err := emit(pr); err != nil {
				return err
			}
		}
	}
}

func (s *Service) previewRow(ctx context.Context, sess Session, m mapper, r Row, seen map[string]bool) (PreviewRow, error) {
	pr := PreviewRow{Index: r.Index, Values: m.values(r.Cells)}
	if r.ReadErr != "" {
		pr.Status, pr.Errors = StatusInvalid, []string{r.ReadErr}
		return pr, nil
	}
	c, errs := m.row(r.Cells)
	var mv domain.Movie
	if len(errs) == 0 {
		var err error
		if mv, err = previewMovie(c); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		pr.Status, pr.Errors = StatusInvalid, errs
		return pr, nil
	}
	pr.Candidate, pr.Status = c, StatusValid
	watched := c.WatchedAt
	if sess.Target == TargetWatchlist {
		watched = time.Time{}
	}
	key := movieKey(mv) + "|" + watched.Format(time.DateOnly)
	if seen[key] {
		pr.Status = StatusDuplicate
		return pr, nil
	}
	seen[key] = true
	dup, err := s.store.ImportDuplicate(ctx, sess.UserID, mv, watched)
	if err != nil {
		return pr, err
	}
	if dup {
		pr.Status = StatusDuplicate
	}
	return pr, nil
}

// previewMovie is the movie a row names, as far as the preview can tell without TMDb.
func previewMovie(c Candidate) (domain.Movie, error) {
	if c.ExternalID != "" {
		ext := c.ExternalID
		return domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: c.Title}, nil
	}
	return domain.NewManualMovie(c.Title, c.Year, optional(c.Director))
}

func movieKey(m domain.Movie) string {
	if m.ExternalID != nil {
		return *m.ExternalID
	}
	d := ""
	if m.Director != nil {
		d = strings.ToLower(*m.Director)
	}
	return strings.ToLower(m.Title) + "|" + strconv.Itoa(m.ReleaseYear) + "|" + d
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
