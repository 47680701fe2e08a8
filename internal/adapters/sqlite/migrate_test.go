package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite3"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/google/uuid"
	sqlite3 "github.com/mattn/go-sqlite3"
	"go.uber.org/goleak"

	"moviesdiary/internal/outbox"
	"moviesdiary/migrations"
	"moviesdiary/migrations/migrationstest"
)

// TestMain lets the test binary act as a separate migrating process for the concurrency test,
// and fails the run if any goroutine outlives the tests.
func TestMain(m *testing.M) {
	if path := os.Getenv("SQLITE_TEST_MIGRATE_CHILD"); path != "" {
		os.Exit(migrateChild(path))
	}
	goleak.VerifyTestMain(m)
}

// migrateChild waits for its standard input to close (the parent releases every child at once),
// then migrates the database.
func migrateChild(path string) int {
	_, _ = io.ReadAll(os.Stdin)
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 1
	}
	defer s.Close()
	if err := s.Migrate(ctx, discard()); err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		return 1
	}
	return 0
}

func TestMigrateFreshDatabase(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	v, dirty, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v != latest || dirty || latest < 101 {
		t.Fatalf("version %d dirty=%v, want %d (>= 101) clean", v, dirty, latest)
	}
	// Migrating again is a no-op.
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
}

// TestConcurrentMigrationProcesses starts 8 processes migrating one empty database at the same
// moment, five times over: all must succeed and the version must be the latest, never dirty.
func TestConcurrentMigrationProcesses(t *testing.T) {
	t.Parallel()
	const procs, rounds = 8, 5
	latest, err := LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("race%d.db", round))
		var wg sync.WaitGroup
		errs := make([]error, procs)
		release := make([]func() error, procs)
		for i := range procs {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SQLITE_TEST_MIGRATE_CHILD="+path)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out := &lockedBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			release[i] = stdin.Close
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := cmd.Wait(); err != nil {
					errs[i] = fmt.Errorf("process %d: %v: %s", i, err, out.String())
				}
			}()
		}
		for _, r := range release {
			r()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		s := openStore(t, path)
		v, dirty, err := s.Version(context.Background())
		if err != nil || v != latest || dirty {
			t.Fatalf("round %d: version %d dirty=%v err=%v, want %d clean", round, v, dirty, err, latest)
		}
	}
}

// TestMigrationBackfillsLegacyRows: rows written by the original system (version 100 schema,
// text timestamps, no event ids) get a unique UUID each, keep their data, and a row stranded in
// processing by the original becomes reclaimable.
func TestMigrationBackfillsLegacyRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "legacy.db")
	s := openStore(t, path)
	ctx := context.Background()
	migrateTo(t, s, 100)
	_, err := s.write.ExecContext(ctx, `INSERT INTO event_queue (event_type, payload, status, attempts, created_at, next_attempt_at, last_error) VALUES
		('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'pending', 0, '2025-01-02T03:04:05Z', '2025-01-02T03:04:05Z', NULL),
		('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'processing', 1, '2025-01-02T03:04:06Z', '2025-01-02T03:04:06Z', 'nack'),
		('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'done', 0, '2025-01-02T03:04:07Z', '2025-01-02T03:04:07Z', NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT event_id, status, attempts, created_at, claimed_at FROM event_queue ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var statuses []string
	for rows.Next() {
		var id, status string
		var attempts int
		var created int64
		var claimed *int64
		if err := rows.Scan(&id, &status, &attempts, &created, &claimed); err != nil {
			t.Fatal(err)
		}
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Errorf("backfilled id %q is not a v4 UUID: %v", id, err)
		}
		if seen[id] {
			t.Errorf("backfilled id %q twice", id)
		}
		seen[id] = true
		statuses = append(statuses, status)
		if status == "processing" && (claimed == nil || *claimed != 0) {
			t.Errorf("legacy processing row has claimed_at %v, want 0 (reclaimable at once)", claimed)
		}
		if created < 1735787045000 || created > 1735787047000 {
			t.Errorf("created_at %d not converted from the legacy text time", created)
		}
	}
	if fmt.Sprint(statuses) != "[pending processing done]" {
		t.Errorf("statuses %v", statuses)
	}
	// The stranded processing row and the pending one are claimable now.
	msgs, err := s.Queue(outbox.QueueConfig{Logger: testLogger(t)}).Claim(ctx, 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("claimed %d legacy rows (err %v), want 2", len(msgs), err)
	}
}

// TestForeignWriterDefaults: a row inserted with only (event_type, payload) is pending, due now,
// and has no event id.
func TestForeignWriterDefaults(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.write.ExecContext(ctx, `INSERT INTO event_queue (event_type, payload) VALUES ('SearchReindexRequested', '{"type":"SearchReindexRequested"}')`); err != nil {
		t.Fatal(err)
	}
	var status string
	var eventID *string
	var attempts int
	var created, due int64
	mustScan(t, s.read.QueryRowContext(ctx, `SELECT status, event_id, attempts, created_at, next_attempt_at FROM event_queue`),
		&status, &eventID, &attempts, &created, &due)
	if status != "pending" || eventID != nil || attempts != 0 || due != created || created == 0 {
		t.Fatalf("defaults: status=%s event_id=%v attempts=%d created=%d due=%d", status, eventID, attempts, created, due)
	}
}

// migrateTo applies migrations up to version v only.
func migrateTo(t *testing.T, s *Store, v uint) {
	t.Helper()
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	db, err := openRaw(s.path)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := msqlite.WithInstance(db, &msqlite.Config{MigrationsTable: migrationsTable})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite3", drv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Migrate(v); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateRetriesARaceOnTheDecisionRecordSchedule: a migration that loses a race (SQLite's
// busy or locked result code, golang-migrate's lock) is retried 5 times, waiting 100 ms doubling
// to 1 s; a sixth failure, or any other error, is returned. The race is told by its code, not
// its message. The retry is tested on its own: the file lock hides it in the process test.
func TestMigrateRetriesARaceOnTheDecisionRecordSchedule(t *testing.T) {
	t.Parallel()
	busy := sqlite3.Error{Code: sqlite3.ErrBusy}
	for _, c := range []struct {
		name      string
		failures  int
		err       error
		wantCalls int
		wantErr   bool
	}{
		{"succeeds on the last retry", 5, busy, 6, false},
		{"gives up after 5 retries", 6, busy, 6, true},
		{"retries a locked table", 5, sqlite3.Error{Code: sqlite3.ErrLocked}, 6, false},
		{"retries a busy statement of the migration driver", 5, &database.Error{OrigErr: fmt.Errorf("exec: %w", busy)}, 6, false},
		{"retries migrate's own lock", 5, migrate.ErrLocked, 6, false},
		{"does not retry other errors", 1, errors.New("syntax error"), 1, true},
		{"does not retry other SQLite codes", 1, sqlite3.Error{Code: sqlite3.ErrCorrupt}, 1, true},
		{"does not go by the message", 1, errors.New("database is locked"), 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			once := func() error {
				calls++
				if calls <= c.failures {
					return c.err
				}
				return nil
			}
			var waits []time.Duration
			wait := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			err := migrateWithRetry(context.Background(), testLogger(t), once, wait)
			if (err != nil) != c.wantErr || calls != c.wantCalls {
				t.Fatalf("err %v after %d calls; want error %v after %d", err, calls, c.wantErr, c.wantCalls)
			}
			want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second}
			if c.wantCalls == 1 {
				want = nil
			}
			if !slices.Equal(waits, want) {
				t.Fatalf("waited %v, want %v", waits, want)
			}
		})
	}
}

// leftDirty is a database a stop inside the latest migration left behind: every migration
// before it applied, the latest's version marked dirty and its work undone. It returns the store,
// the latest version and that migration's text as the store runs it.
func leftDirty(t *testing.T) (s *Store, latest uint, body string) {
	t.Helper()
	latest, prev, body := migrationstest.Latest(t, migrations.FS, migrationsTable)
	s = openStore(t, filepath.Join(t.TempDir(), "dirty.db"))
	migrateTo(t, s, prev)
	if _, err := s.write.Exec(`UPDATE schema_migrations SET version = ?, dirty = 1`, latest); err != nil {
		t.Fatal(err)
	}
	return s, latest, body
}

// TestMigrateRunsAgainAMigrationLeftDirty: a version left dirty is one whose migration never
// committed (its clean mark commits with it), so the next start sets it back and runs it again,
// instead of refusing to start until an operator forces the version by hand.
func TestMigrateRunsAgainAMigrationLeftDirty(t *testing.T) {
	t.Parallel()
	s, latest, _ := leftDirty(t)
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatalf("migrate over a dirty version: %v", err)
	}
	if v, dirty, err := s.Version(context.Background()); err != nil || v != latest || dirty {
		t.Fatalf("version %d dirty=%v (%v), want %d clean", v, dirty, err, latest)
	}
}

// TestMigrationCommitsItsCleanMark: a migration's text, as the store runs it, marks its version
// clean itself, so no stop between golang-migrate's steps leaves a committed migration dirty.
func TestMigrationCommitsItsCleanMark(t *testing.T) {
	t.Parallel()
	s, _, body := leftDirty(t)
	migrationstest.CheckCleanMark(t, s.write.DB, body)
}

// TestMigrationKilledMidwayIsFinishedByTheNextStart kills a migrating process (SIGKILL) each
// time it has marked a version dirty, at later and later versions; the next process must finish
// the job, leaving the latest version clean.
func TestMigrationKilledMidwayIsFinishedByTheNextStart(t *testing.T) {
	t.Parallel()
	latest, err := LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	// run migrates a fresh database at path in child processes, killing each one as it marks a
	// version dirty at or after the next stop, and returns how many it killed. On a loaded
	// machine a child may finish every migration between two looks at the file; the run is
	// then made again on another database (up to five times) rather than proving nothing.
	run := func(path string) int {
		ro, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		// dirtyAt reports whether the database's version is at least v and dirty.
		dirtyAt := func(v uint) bool {
			var got uint
			var dirty bool
			err := ro.QueryRow(`SELECT version, dirty FROM schema_migrations`).Scan(&got, &dirty)
			return err == nil && got >= v && dirty
		}
		kills := 0
		for _, at := range []uint{1, 20, 101, 170, 200, latest} {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SQLITE_TEST_MIGRATE_CHILD="+path)
			out := &lockedBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			deadline := time.Now().Add(30 * time.Second)
		watch:
			for {
				select {
				case err := <-exited: // finished before a dirty version at or after at was seen
					if err != nil {
						t.Fatalf("migrating process (stop at %d): %v\n%s", at, err, out.String())
					}
					break watch
				default:
				}
				if dirtyAt(at) {
					_ = cmd.Process.Kill()
					<-exited
					kills++
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no dirty version at or after %d within 30s", at)
				}
				time.Sleep(100 * time.Microsecond) // polling the file, not waiting for a result
			}
		}
		return kills
	}
	var path string
	kills := 0
	for round := 0; kills == 0 && round < 5; round++ {
		path = filepath.Join(t.TempDir(), fmt.Sprintf("killed-%d.db", round))
		kills = run(path)
	}
	if kills == 0 {
		t.Fatal("no migration was killed midway: the test proved nothing")
	}
	t.Logf("%d migrating processes killed midway", kills)
	s := openStore(t, path)
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatalf("migrate after %d kills: %v", kills, err)
	}
	if v, dirty, err := s.Version(context.Background()); err != nil || v != latest || dirty {
		t.Fatalf("version %d dirty=%v (%v), want %d clean", v, dirty, err, latest)
	}
}
