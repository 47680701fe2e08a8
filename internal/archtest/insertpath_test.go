package archtest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storetest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// TestExecutedInsertsIntoEventQueueComeFromOutbox enforces the one insert path (DESIGN.md,
// invariant 2) on what the stores execute rather than on how their source spells it. The whole
// repository suite (storetest: every area both stores pass) runs against a real store of each
// engine while the database itself reports each insert into event_queue:
//
//   - SQLite calls an update hook (inserthook_test.go) for every row written, on the goroutine
//     stepping the statement, so the call stack names the code that wrote it: every row must
//     have been written inside outbox.Insert.
//   - PostgreSQL runs a statement trigger on event_queue (pginserts_test.go) that keeps the text
//     of the statement the client sent (current_query()): every one must be outbox.Insert's
//     statement, the only one of its shape.
//
// A statement whose table name is concatenated, a constant, a format verb or anything else is
// caught alike, since the database reports the table it actually wrote. The reach is the
// suite's: an insert on a path no suite case runs escapes it (TestOnlyOutboxSpells… still scans
// the source for a literal one there).
func TestExecutedInsertsIntoEventQueueComeFromOutbox(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		if !slices.Contains(hookedDrivers, "sqlite3-moviesdiary-writer") {
			t.Fatalf("hooked drivers %v: the store's writer driver is not among them, so nothing it inserts is seen", hookedDrivers)
		}
		t.Run("suite", func(t *testing.T) { runSuites(t, openSQLite) })
		origins, rows := inserts.snapshot()
		outboxRows := 0
		for key, o := range origins {
			if o.fromOutbox() {
				outboxRows += rows[key]
				continue
			}
			t.Errorf("%d row(s) inserted into event_queue outside outbox.Insert, by %s", rows[key], o)
		}
		if outboxRows < 100 {
			t.Errorf("the suite inserted %d rows through outbox.Insert: the hook saw too little for the check to mean anything", outboxRows)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		var statements pgStatements
		t.Run("suite", func(t *testing.T) {
			runSuites(t, func(t *testing.T, f *storetest.Faults) *postgres.Store { return openPostgres(t, f, &statements) })
		})
		fromOutbox := 0
		for query, n := range statements.snapshot() {
			if outboxStatement.MatchString(query) {
				fromOutbox += n
				continue
			}
			t.Errorf("%d statement(s) inserted into event_queue other than outbox.Insert's: %s", n, query)
		}
		if fromOutbox < 100 {
			t.Errorf("the suite ran %d of outbox.Insert's statements: the trigger saw too little for the check to mean anything", fromOutbox)
		}
	})
}

// suiteStore is what a store passes to every area of the repository suite.
type suiteStore interface {
	storetest.Store
	storetest.Catalog
	storetest.Federation
	storetest.Imports
	storetest.Search
	storetest.WrapUpGeneration
	storetest.GoalWrites
}

// runSuites runs every area of the repository suite, as the engines' own packages do, against
// the stores open returns.
func runSuites[S suiteStore](t *testing.T, open func(*testing.T, *storetest.Faults) S) {
	t.Run("Store", func(t *testing.T) { t.Parallel(); storetest.RunStore(t, open) })
	t.Run("Catalog", func(t *testing.T) {
		t.Parallel()
		storetest.RunCatalog(t, func(t *testing.T, f *storetest.Faults) storetest.Catalog { return open(t, f) })
	})
	t.Run("Federation", func(t *testing.T) {
		t.Parallel()
		storetest.RunFederation(t, func(t *testing.T, f *storetest.Faults) storetest.Federation { return open(t, f) })
	})
	t.Run("Imports", func(t *testing.T) {
		t.Parallel()
		storetest.RunImports(t, func(t *testing.T, f *storetest.Faults) storetest.Imports { return open(t, f) })
	})
	t.Run("Search", func(t *testing.T) {
		t.Parallel()
		storetest.RunSearch(t, func(t *testing.T, f *storetest.Faults) storetest.Search { return open(t, f) })
	})
	t.Run("WrapUpGeneration", func(t *testing.T) {
		t.Parallel()
		storetest.RunWrapUpGeneration(t, func(t *testing.T, f *storetest.Faults) storetest.WrapUpGeneration { return open(t, f) })
	})
	t.Run("GoalWrites", func(t *testing.T) {
		t.Parallel()
		storetest.RunGoalWrites(t, func(t *testing.T, f *storetest.Faults) storetest.GoalWrites { return open(t, f) })
	})
}

// faultyEnqueue is enqueue (the engine's EnqueueEvents) failing while faults are on, as the
// engines' own suite openers do.
func faultyEnqueue(faults *storetest.Faults, enqueue func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error) func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error {
	return func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
		if err := faults.Err(); err != nil {
			return err
		}
		if err := enqueue(ctx, tx, now, events...); err != nil {
			return err
		}
		return faults.ErrAfter()
	}
}

// openSQLite opens a migrated SQLite store in a fresh file.
func openSQLite(t *testing.T, faults *storetest.Faults) *sqlite.Store {
	return sqlitetest.Open(t, filepath.Join(t.TempDir(), "archtest.db"),
		sqlite.WithEnqueue(faultyEnqueue(faults, outbox.Insert)))
}
