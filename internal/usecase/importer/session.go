package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Upload is a file as the client sent it.
type Upload struct {
	UserID   uuid.UUID
	Format   string // csv, tsv, json, xlsx; "" or unknown: detected from the content
	Filename string
	Body     io.Reader
}

// Created is the answer to an upload.
type Created struct {
	Session Session
	Sample  [][]string
}

// ErrTooLarge is returned, wrapped, when an upload is larger than MaxFileBytes or has more than
// MaxRows rows; the HTTP layer answers 413.
var ErrTooLarge = errors.New("import file too large")

// Create stores an upload as a session, row by row: the file is never held whole (XLSX aside).
// A known export is recognised from its header and mapped at once. A file that cannot be read
// at all is a 400; lines that cannot be read are kept as rows that preview as invalid.
func (s *Service) Create(ctx context.Context, u Upload) (Created, error) {
	f, err := s.open(u.Body, u.Format)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return Created{}, err
		}
		return Created{}, domain.Invalid("cannot read the file: %v", err)
	}
	defer f.Close()
	id, err := uuid.NewV7()
	if err != nil {
		return Created{}, err
	}
	now := s.now().UTC()
	known := recognise(f.Header(), u.Filename)
	sess := Session{
		ID: id, UserID: u.UserID, Format: f.Format(), Kind: known.Kind, Target: known.Target,
		Columns: f.Header(), Mappings: known.Mappings, CreatedAt: now, ExpiresAt: now.Add(SessionTTL),
	}
	if err := s.store.CreateImportSession(ctx, sess); err != nil {
		return Created{}, err
	}
	out := Created{Session: sess, Sample: [][]string{}}
	n, err := s.storeRows(ctx, id, f, &out.Sample)
	if err != nil {
		// The rows stored so far go with the session; a failed cleanup leaves it invisible
		// (never completed) until the maintenance job deletes it.
		if derr := s.store.DeleteImportSession(context.WithoutCancel(ctx), id); derr != nil {
			s.log.WarnContext(ctx, "import: delete the failed upload", "session_id", id, "error", derr)
		}
		return Created{}, err
	}
	if err := s.store.CompleteImportSession(ctx, id, n); err != nil {
		return Created{}, err
	}
	out.Session.RowCount = n
	return out, nil
}

// storeRows reads every row of f into the session in chunks and returns how many there were.
func (s *Service) storeRows(ctx context.Context, id uuid.UUID, f File, sample *[][]string) (int, error) {
	chunk := make([]Row, 0, storeChunk)
	n, stored := 0, 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		err := s.store.AppendImportRows(ctx, id, chunk)
		chunk = chunk[:0]
		return err
	}
	for {
		cells, readErr, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return 0, err
			}
			return 0, domain.Invalid("cannot read the file after row %d: %v", n, err)
		}
		if n >= MaxRows {
			return 0, fmt.Errorf("%w: more than %d rows", ErrTooLarge, MaxRows)
		}
		if stored += storedSize(cells, readErr); stored > MaxStoredBytes {
			return 0, fmt.Errorf("%w: the rows would store more than %d bytes", ErrTooLarge, MaxStoredBytes)
		}
		if len(*sample) < SampleRows {
			*sample = append(*sample, cells)
		}
		chunk = append(chunk, Row{Index: n, Cells: cells, ReadErr: readErr})
		n++
		if len(chunk) == storeChunk {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, flush()
}

// storedSize is about what a row stores: its cells as a JSON array (quotes and commas; escapes
// aside) and its read error.
func storedSize(cells []string, readErr string) int {
	n := 2 + len(readErr)
	for _, c := range cells {
		n += len(c) + 3
	}
	return n
}

// MappingRequest is one mapping as a client sends it; an unknown domain field is skipped.
type MappingRequest struct {
	SourceColumn string
	Field        string
	RatingScale  *float64
	DateFormat   *string
}

// SetMapping replaces a session's mappings and returns its row count.
func (s *Service) SetMapping(ctx context.Context, userID, id uuid.UUID, req []MappingRequest) (int, error) {
	ms := make([]Mapping, 0, len(req))
	for _, r := range req {
		m := Mapping{SourceColumn: r.SourceColumn, Field: Field(strings.TrimSpace(r.Field)), RatingScale: r.RatingScale}
		if r.DateFormat != nil {
			m.DateFormat = *r.DateFormat
		}
		ms = append(ms, m)
	}
	return s.applyMappings(ctx, userID, id, ms)
}

func (s *Service) applyMappings(ctx context.Context, userID, id uuid.UUID, ms []Mapping) (int, error) {
	sess, err := s.Get(ctx, userID, id)
	if err != nil {
		return 0, err
	}
	if _, err := compile(sess.Columns, ms, sess.Target); err != nil {
		return 0, err
	}
	if sess.Running {
		return 0, domain.Errorf(domain.KindConflict, "the import is being confirmed")
	}
	if err := s.store.SetImportMappings(ctx, id, ms); err != nil {
		return 0, err
	}
	return sess.RowCount, nil
}
