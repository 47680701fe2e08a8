// Package importer is the diary import: a file uploaded into a session, its columns mapped onto
// review fields (or recognised as a Letterboxd or IMDb export and mapped automatically), a
// preview of every row, and the confirmation that writes the chosen rows as reviews (or
// watchlist entries) in batches through the outbox, resumable and idempotent.
package importer

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Limits and defaults of an import.
const (
	// MaxFileBytes is the largest upload; a larger one is refused with 413.
	MaxFileBytes = 32 << 20
	// MaxRows bounds the rows of one file.
	MaxRows = 200_000
	// MaxStoredBytes bounds what one upload stores: its rows' cells and read errors, counted as
	// the JSON they are stored as. Twice MaxFileBytes leaves room for the quoting of a file of
	// short cells; a file that turns into more (a spreadsheet's cells repeated, padded) is
	// refused with 413.
	MaxStoredBytes = 2 * MaxFileBytes
	// SessionTTL is how long a session lives after its upload (or its last confirm).
	SessionTTL = 24 * time.Hour
	// BatchSize is how many rows one confirm transaction writes.
	BatchSize = 500
	// SampleRows is how many rows the upload answer shows.
	SampleRows = 5
	// storeChunk is how many uploaded rows one insert carries.
	storeChunk = 1000
)

// Row is one stored row of a session's file.
type Row struct {
	Index   int
	Cells   []string
	ReadErr string // the parser could not read the line
}

// Session is an uploaded file and what has been done with it.
type Session struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Format    string
	Kind      Kind
	Target    Target
	Columns   []string
	Mappings  []Mapping // nil until set
	RowCount  int
	Federate  bool
	CreatedAt time.Time
	ExpiresAt time.Time
	Progress  Progress
	// Running is true while a confirm of this session is writing rows.
	Running bool
}

// Progress counts a session's confirmed rows by outcome.
type Progress struct {
	Confirmed  int // rows a confirm request named
	Processed  int // of those, rows written (imported, duplicate or failed)
	Imported   int
	Duplicates int
	Failed     int
}

// Outcome of a confirmed row.
const (
	OutcomeImported  = "imported"
	OutcomeDuplicate = "duplicate"
	OutcomeFailed    = "failed"
)

// Item is one row of a confirm batch: a review (diary) or a movie (watchlist) to write, or why
// the row failed.
type Item struct {
	Index  int
	Review domain.Review
	Movie  domain.Movie
	Err    string
}

// Batch is one confirm transaction.
type Batch struct {
	SessionID uuid.UUID
	UserID    uuid.UUID
	Target    Target
	// Quiet marks the reviews and watchlist entries so federation does not announce them.
	Quiet bool
	Now   time.Time
	Items []Item
}

// SessionRef names a session and its owner.
type SessionRef struct {
	ID     uuid.UUID
	UserID uuid.UUID
}

// Failure is a confirmed row that was not imported.
type Failure struct {
	Index int
	Error string
}

// Profile is a saved mapping.
type Profile struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Name      string
	Mappings  []Mapping
	CreatedAt time.Time
}

// Store keeps sessions, their rows and profiles, and writes confirm batches. Reads of a session
// are the user's own: another user's, an expired or an unfinished upload is KindNotFound.
type Store interface {
	movie.Lookup
	CreateImportSession(ctx context.Context, s Session) error
	AppendImportRows(ctx context.Context, sessionID uuid.UUID, rows []Row) error
	// CompleteImportSession makes a session visible once all its rows are stored.
	CompleteImportSession(ctx context.Context, sessionID uuid.UUID, rowCount int) error
	DeleteImportSession(ctx context.Context, sessionID uuid.UUID) error
	ImportSession(ctx context.Context, userID, id uuid.UUID, now time.Time) (Session, error)
	SetImportMappings(ctx context.Context, sessionID uuid.UUID, ms []Mapping) error
	// ImportRows returns up to limit rows with an index above after, in order.
	ImportRows(ctx context.Context, sessionID uuid.UUID, after, limit int) ([]Row, error)
	// SelectImportRows marks rows as confirmed (those that exist), records federate and moves
	// the expiry to expires.
	SelectImportRows(ctx context.Context, sessionID uuid.UUID, indices []int, federate bool, expires time.Time) error
	// PendingImportRows returns up to limit confirmed rows not yet written, in order.
	PendingImportRows(ctx context.Context, sessionID uuid.UUID, limit int) ([]Row, error)
	// WriteImportBatch writes a batch in one transaction: each review with its movie (created
	// if new) and events, unless the user already has a review of that movie on that day
	// (duplicate); each row's outcome with it.
	WriteImportBatch(ctx context.Context, b Batch) error
	ImportFailures(ctx context.Context, sessionID uuid.UUID) ([]Failure, error)
	// InterruptedImportSessions lists the unexpired sessions with confirmed rows not written.
	InterruptedImportSessions(ctx context.Context, now time.Time) ([]SessionRef, error)
	// ImportDuplicate reports whether the user already has what a candidate row would write: a
	// review of m on the day of watched (diary) or m on the watchlist (zero watched).
	ImportDuplicate(ctx context.Context, userID uuid.UUID, m domain.Movie, watched time.Time) (bool, error)

	SaveImportProfile(ctx context.Context, p Profile) error
	ImportProfiles(ctx context.Context, userID uuid.UUID) ([]Profile, error)
	ImportProfile(ctx context.Context, userID, id uuid.UUID) (Profile, error)
	DeleteImportProfile(ctx context.Context, userID, id uuid.UUID) error
}

// Open reads the header of an uploaded file in format ("" or unknown: detected from the
// content); the adapter behind it is the tabular parser.
type Open func(r io.Reader, format string) (File, error)

// File is an open upload.
type File interface {
	Format() string
	Header() []string
	// Next returns the next row's cells and the line's read error, or io.EOF.
	Next() (cells []string, readErr string, err error)
	Close() error
}

// Service runs the import use cases.
type Service struct {
	store    Store
	open     Open
	resolver *movie.Resolver
	log      *slog.Logger
	now      func() time.Time

	mu      sync.Mutex
	running map[uuid.UUID]bool // sessions a confirm is writing, in this process
}

// NewService builds the service; resolver is the one POST /reviews resolves movies with.
func NewService(store Store, open Open, resolver *movie.Resolver, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: store, open: open, resolver: resolver, log: log, now: time.Now, running: map[uuid.UUID]bool{}}
}

// SetClock replaces the clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Get returns one of the user's sessions with its progress.
func (s *Service) Get(ctx context.Context, userID, id uuid.UUID) (Session, error) {
	sess, err := s.store.ImportSession(ctx, userID, id, s.now())
	if err != nil {
		return Session{}, err
	}
	s.mu.Lock()
	sess.Running = s.running[id]
	s.mu.Unlock()
	return sess, nil
}
