package migrations_test

import (
	"io"
	"io/fs"
	"regexp"
	"testing"

	"moviesdiary/migrations"
	pgmigrations "moviesdiary/migrations/postgres"
)

// transactionControl matches a statement that begins, ends or rolls back a transaction (a
// trigger's or a function's BEGIN … END is no such statement).
var transactionControl = regexp.MustCompile(`(?im)^\s*(COMMIT|ROLLBACK|END\s+TRANSACTION|BEGIN\s+(TRANSACTION|DEFERRED|IMMEDIATE|EXCLUSIVE|WORK)|BEGIN\s*;|SAVEPOINT|RELEASE)\b`)

// TestNoMigrationControlsItsTransaction: each migration runs in one transaction with its clean
// mark (Source); a migration that committed on its own would commit its work without the mark.
func TestNoMigrationControlsItsTransaction(t *testing.T) {
	for name, fsys := range map[string]fs.FS{"sqlite": migrations.FS, "postgres": pgmigrations.FS} {
		files, err := fs.Glob(fsys, "*.up.sql")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %d migrations (%v)", name, len(files), err)
		}
		for _, f := range files {
			b, err := fs.ReadFile(fsys, f)
			if err != nil {
				t.Fatal(err)
			}
			if m := transactionControl.Find(b); m != nil {
				t.Errorf("%s/%s controls its own transaction (%q): it would commit without its clean mark", name, f, m)
			}
		}
	}
}

// TestSourceMarksEveryMigrationClean: every up migration Source gives ends with the statement
// that marks its version clean.
func TestSourceMarksEveryMigrationClean(t *testing.T) {
	src, err := migrations.Source(migrations.FS, "schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	mark := regexp.MustCompile(`;\s*UPDATE schema_migrations SET dirty = false;\s*$`)
	v, err := src.First()
	for err == nil {
		r, _, rerr := src.ReadUp(v)
		if rerr != nil {
			t.Fatal(rerr)
		}
		b, rerr := io.ReadAll(r)
		r.Close()
		if rerr != nil {
			t.Fatal(rerr)
		}
		if !mark.Match(b) {
			t.Errorf("migration %d does not end with its clean mark", v)
		}
		v, err = src.Next(v)
	}
}
