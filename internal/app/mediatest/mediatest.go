// Package mediatest is the worker media handlers' test bench: a real SQLite file and a real image
// store (a directory in t.TempDir(), or with OnS3 a bucket of a real S3 server on loopback), the
// fake TMDb, a spy on the image storage that counts writes and can fail any step, and helpers to
// seed rows and count outbox events.
package mediatest

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/storage/s3test"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// BladeRunner is the external id the fake TMDb knows.
const BladeRunner = "tt0083658"

// ErrInjected is the failure Objects injects.
var ErrInjected = errors.New("injected failure")

// Env is one test's world.
type Env struct {
	T     testing.TB
	Store *sqlite.Store
	DB    *sql.DB // DB reads and seeds the file directly
	// Images is the image store, unspied: Local, or the S3 store with OnS3.
	Images storage.Store
	// Local is the directory store; nil with OnS3.
	Local   *storage.Local
	Objects *Objects
	TMDb    *tmdbtest.Server
	Log     *slog.Logger
	// FailEnqueue, while set, makes the store's event inserts fail with ErrInjected, so the
	// write they belong to rolls back.
	FailEnqueue atomic.Bool
}

// Option changes how New builds an Env.
type Option func(*options)

type options struct{ s3 bool }

// OnS3 keeps the images in a bucket of a real S3 server (versitygw, started for the test)
// instead of a directory.
func OnS3() Option { return func(o *options) { o.s3 = true } }

// Stores are the image stores a test runs against with t.Run: "local" and "s3".
var Stores = map[string][]Option{"local": nil, "s3": {OnS3()}}

// New builds an Env.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "test.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := &Env{T: t, Log: log}
	env.Store = sqlitetest.Open(t, path, sqlite.WithEnqueue(func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
		if env.FailEnqueue.Load() {
			return ErrInjected
		}
		return outbox.Insert(ctx, tx, now, events...)
	}))
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000&_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if o.s3 {
		env.Images, _ = s3test.Open(t)
	} else {
		local, err := storage.OpenLocal(filepath.Join(dir, "images"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { local.Close() })
		env.Images, env.Local = local, local
	}
	env.DB, env.Objects, env.TMDb = db, &Objects{Store: env.Images, puts: map[string]int{}}, tmdbtest.New(t)
	return env
}

// Exec runs a statement on the file, failing the test on error.
func (e *Env) Exec(q string, args ...any) {
	e.T.Helper()
	if _, err := e.DB.Exec(q, args...); err != nil {
		e.T.Fatalf("%s: %v", q, err)
	}
}

// Int runs a query answering one integer.
func (e *Env) Int(q string, args ...any) int {
	e.T.Helper()
	var n int
	if err := e.DB.QueryRow(q, args...).Scan(&n); err != nil {
		e.T.Fatalf("%s: %v", q, err)
	}
	return n
}

// String runs a query answering one nullable text ("" for NULL).
func (e *Env) String(q string, args ...any) string {
	e.T.Helper()
	var s sql.Null[string]
	if err := e.DB.QueryRow(q, args...).Scan(&s); err != nil {
		e.T.Fatalf("%s: %v", q, err)
	}
	return s.V
}

// Events counts the outbox rows of an event type.
func (e *Env) Events(eventType string) int {
	e.T.Helper()
	return e.Int(`SELECT count(*) FROM event_queue WHERE event_type = ?`, eventType)
}

// AddMovie stores a movie with an external id (its id derived from it, as resolution does) and
// returns the id.
func (e *Env) AddMovie(ext, title string, year int) uuid.UUID {
	e.T.Helper()
	id := domain.MovieIDFor(ext)
	e.Exec(`INSERT INTO movies (id, external_metadata_id, title, release_year) VALUES (?, ?, ?, ?)`, id.String(), ext, title, year)
	return id
}

// AddUser stores a user and returns the id.
func (e *Env) AddUser(name string) uuid.UUID {
	e.T.Helper()
	id := uuid.New()
	e.Exec(`INSERT INTO users (id, username, email, password_hash) VALUES (?, ?, ?, 'x')`, id.String(), name, name+"@example.test")
	return id
}

// AddReview stores a review of a movie by a user, watched at watchedAt (RFC 3339).
func (e *Env) AddReview(user, movie uuid.UUID, rating int, watchedAt string, medium *string) {
	e.T.Helper()
	e.Exec(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, watch_medium) VALUES (?, ?, ?, ?, ?, ?)`,
		uuid.New().String(), user.String(), movie.String(), rating, watchedAt, medium)
}

// Objects is the real image storage with a spy: it counts puts per key and fails the operation
// FailAt names ("exists", "get", "put", "delete") while FailAt is set.
type Objects struct {
	storage.Store
	mu     sync.Mutex
	puts   map[string]int
	failAt string
}

// FailAt makes an operation fail until it is cleared with "".
func (o *Objects) FailAt(op string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failAt = op
}

func (o *Objects) fail(op string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failAt == op {
		return ErrInjected
	}
	return nil
}

// Puts is how many times key was written.
func (o *Objects) Puts(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.puts[key]
}

// Exists is the store's Exists, or the injected failure.
func (o *Objects) Exists(ctx context.Context, key string) (bool, error) {
	if err := o.fail("exists"); err != nil {
		return false, err
	}
	return o.Store.Exists(ctx, key)
}

// Get is the store's Get, or the injected failure.
func (o *Objects) Get(ctx context.Context, key string) ([]byte, error) {
	if err := o.fail("get"); err != nil {
		return nil, err
	}
	return o.Store.Get(ctx, key)
}

// Put counts and is the store's Put, or the injected failure (after the write when FailAt is
// "after-put": the object is stored and the caller sees a crash).
func (o *Objects) Put(ctx context.Context, key string, data []byte) error {
	if err := o.fail("put"); err != nil {
		return err
	}
	o.mu.Lock()
	o.puts[key]++
	o.mu.Unlock()
	if err := o.Store.Put(ctx, key, data); err != nil {
		return err
	}
	return o.fail("after-put")
}

// Delete is the store's Delete, or the injected failure.
func (o *Objects) Delete(ctx context.Context, key string) error {
	if err := o.fail("delete"); err != nil {
		return err
	}
	return o.Store.Delete(ctx, key)
}
