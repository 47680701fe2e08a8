package importer_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/tabular"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/movie"
)

// bundle is the import service over a real store, a user, and a clock the test moves.
type bundle struct {
	svc   *importer.Service
	store *sqlite.Store
	db    *sql.DB // the same database, read directly
	user  uuid.UUID
	now   time.Time
}

func setup(t *testing.T) *bundle {
	t.Helper()
	path := filepath.Join(t.TempDir(), "import.db")
	store := sqlitetest.Open(t, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := &bundle{store: store, db: db, user: uuid.New(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := db.Exec(`INSERT INTO users (id, username, email, password_hash) VALUES (?, 'u', 'u@example.test', 'x')`, b.user.String()); err != nil {
		t.Fatal(err)
	}
	open := func(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) }
	b.svc = importer.NewService(store, open, movie.NewResolver(store, nil, nil), nil)
	b.svc.SetClock(func() time.Time { return b.now })
	return b
}

const ratings = "Date,Name,Year,Letterboxd URI,Rating\n2023-01-05,Heat,1995,https://boxd.it/2bHu,3.5\n"

// TestSessionsExpireAfterADay: a session answers until SessionTTL after its upload, then is
// not found, and the cleaner's store call deletes it.
func TestSessionsExpireAfterADay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	c, err := b.svc.Create(ctx, importer.Upload{UserID: b.user, Filename: "ratings.csv", Body: strings.NewReader(ratings)})
	if err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(importer.SessionTTL - time.Minute)
	if _, err := b.svc.Get(ctx, b.user, c.Session.ID); err != nil {
		t.Fatalf("a session a minute before expiry: %v", err)
	}
	if _, err := b.svc.Get(ctx, uuid.New(), c.Session.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another user's get = %v, want not found", err)
	}
	b.now = b.now.Add(2 * time.Minute)
	if _, err := b.svc.Get(ctx, b.user, c.Session.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an expired session = %v, want not found", err)
	}
	if _, err := b.svc.Confirm(ctx, b.user, c.Session.ID, []int{0}, false); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("confirming an expired session = %v, want not found", err)
	}
	n, err := b.store.DeleteExpiredImportSessions(ctx, b.now)
	if err != nil || n != 1 {
		t.Errorf("deleted %d, %v; want 1", n, err)
	}
}

// TestConfirmExtendsTheSession: a confirm moves the expiry a day on, so a session being
// confirmed is not cleaned up under it.
func TestConfirmExtendsTheSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	c, err := b.svc.Create(ctx, importer.Upload{UserID: b.user, Filename: "ratings.csv", Body: strings.NewReader(ratings)})
	if err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(20 * time.Hour)
	res, err := b.svc.Confirm(ctx, b.user, c.Session.ID, []int{0}, false)
	if err != nil || res.Imported != 1 {
		t.Fatalf("confirm = %+v, %v", res, err)
	}
	b.now = b.now.Add(20 * time.Hour)
	s, err := b.svc.Get(ctx, b.user, c.Session.ID)
	if err != nil || s.Progress.Imported != 1 || s.Progress.Processed != 1 {
		t.Errorf("session 40 h after upload, 20 h after its confirm = %+v, %v", s.Progress, err)
	}
}

// TestUploadLimits: more rows than MaxRows is too large, and leaves no session behind.
func TestUploadLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var f strings.Builder
	f.WriteString("a\n")
	for range importer.MaxRows + 1 {
		f.WriteString("x\n")
	}
	_, err := b.svc.Create(ctx, importer.Upload{UserID: b.user, Body: strings.NewReader(f.String())})
	if !errors.Is(err, importer.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n, _ := b.store.DeleteExpiredImportSessions(ctx, b.now.Add(100*importer.SessionTTL)); n != 0 {
		t.Errorf("%d sessions left behind", n)
	}
}

// blockingStore is the real store whose batch writes wait for release, announcing each on
// entered: a confirm can be held mid-way.
type blockingStore struct {
	*sqlite.Store
	entered chan struct{}
	release chan struct{}
}

func (s *blockingStore) WriteImportBatch(ctx context.Context, b importer.Batch) error {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.WriteImportBatch(ctx, b)
}

// TestOneConfirmAtATime: while a confirm writes, the session says it is running, a second
// confirm or a new mapping is a conflict, and the first one finishes normally.
func TestOneConfirmAtATime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	store := &blockingStore{Store: b.store, entered: make(chan struct{}), release: make(chan struct{})}
	open := func(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) }
	svc := importer.NewService(store, open, movie.NewResolver(b.store, nil, nil), nil)
	c, err := svc.Create(ctx, importer.Upload{UserID: b.user, Filename: "ratings.csv", Body: strings.NewReader(ratings)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		res, err := svc.Confirm(ctx, b.user, c.Session.ID, []int{0}, false)
		if err == nil && res.Imported != 1 {
			err = errors.New("the first confirm did not import its row")
		}
		done <- err
	}()
	<-store.entered
	s, err := svc.Get(ctx, b.user, c.Session.ID)
	if err != nil || !s.Running || s.Progress.Confirmed != 1 || s.Progress.Processed != 0 {
		t.Errorf("session mid-confirm = %+v, %v", s, err)
	}
	if _, err := svc.Confirm(ctx, b.user, c.Session.ID, []int{0}, false); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("second confirm = %v, want a conflict", err)
	}
	if _, err := svc.SetMapping(ctx, b.user, c.Session.ID, nil); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("mapping mid-confirm = %v, want a conflict", err)
	}
	close(store.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s, _ := svc.Get(ctx, b.user, c.Session.ID); s.Running || s.Progress.Imported != 1 {
		t.Errorf("session after the confirm = %+v", s)
	}
}

// failingStore is the real store whose second batch write fails, as a crash would leave it.
type failingStore struct {
	*sqlite.Store
	batches int
}

func (s *failingStore) WriteImportBatch(ctx context.Context, b importer.Batch) error {
	if s.batches++; s.batches == 2 {
		return errors.New("injected crash")
	}
	return s.Store.WriteImportBatch(ctx, b)
}

// TestResumeFinishesAnInterruptedConfirm: a confirm that died after its first batch leaves that
// batch written and the rest pending; Resume (what a restarted server runs) writes the rest
// once, with the federate choice of the confirm, and a second Resume finds nothing to do.
func TestResumeFinishesAnInterruptedConfirm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var f strings.Builder
	f.WriteString("Date,Name,Year,Letterboxd URI,Rating\n")
	const rows = importer.BatchSize*2 + 7
	for i := range rows {
		f.WriteString("2024-01-01,Film " + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + " " + itoa(i) + ",1999,u,3\n")
	}
	open := func(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) }
	crashing := importer.NewService(&failingStore{Store: b.store}, open, movie.NewResolver(b.store, nil, nil), nil)
	c, err := crashing.Create(ctx, importer.Upload{UserID: b.user, Filename: "ratings.csv", Body: strings.NewReader(f.String())})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, rows)
	for i := range all {
		all[i] = i
	}
	if _, err := crashing.Confirm(ctx, b.user, c.Session.ID, all, true); err == nil {
		t.Fatal("the crashing confirm succeeded")
	}
	restarted := importer.NewService(b.store, open, movie.NewResolver(b.store, nil, nil), nil)
	s, err := restarted.Get(ctx, b.user, c.Session.ID)
	if err != nil || s.Progress.Processed != importer.BatchSize || s.Progress.Imported != importer.BatchSize || s.Running {
		t.Fatalf("after the crash: %+v, %v", s.Progress, err)
	}
	n, err := restarted.Resume(ctx)
	if err != nil || n != rows-importer.BatchSize {
		t.Fatalf("Resume wrote %d, %v; want %d", n, err, rows-importer.BatchSize)
	}
	if s, _ := restarted.Get(ctx, b.user, c.Session.ID); s.Progress.Imported != rows || s.Progress.Processed != rows {
		t.Errorf("after Resume: %+v", s.Progress)
	}
	if n, err := restarted.Resume(ctx); err != nil || n != 0 {
		t.Errorf("second Resume wrote %d, %v", n, err)
	}
	res, err := restarted.Confirm(ctx, b.user, c.Session.ID, all, true)
	if err != nil || res.Imported != rows || res.Duplicates != 0 {
		t.Errorf("confirm after the resume = %+v, %v", res, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
