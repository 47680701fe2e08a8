// Package migrationstest checks, against a store's real database, what migrations.Source and
// migrations.Up promise: a dirty version committed nothing, and runs again.
package migrationstest

import (
	"database/sql"
	"io"
	"io/fs"
	"testing"

	"moviesdiary/migrations"
)

// Latest is fsys's newest migration, the one before it, and the newest's text as the stores run
// it (with its clean mark).
func Latest(t testing.TB, fsys fs.FS, table string) (latest, prev uint, body string) {
	t.Helper()
	latest, err := migrations.Latest(fsys)
	if err != nil {
		t.Fatal(err)
	}
	src, err := migrations.Source(fsys, table)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if prev, err = src.Prev(latest); err != nil {
		t.Fatal(err)
	}
	r, _, err := src.ReadUp(latest)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return latest, prev, string(b)
}

// CheckCleanMark runs body (a migration's text as the stores run it) in a transaction on db,
// whose schema_migrations row is that migration's version, marked dirty: inside the
// transaction the version must be clean, and after its rollback dirty again, so the schema
// change and the clean mark commit or roll back together.
func CheckCleanMark(t testing.TB, db *sql.DB, body string) {
	t.Helper()
	dirty := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) bool {
		var d bool
		if err := q.QueryRow(`SELECT dirty FROM schema_migrations`).Scan(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if !dirty(db) {
		t.Fatal("the version is not dirty before the migration runs")
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(body); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if dirty(tx) {
		tx.Rollback()
		t.Fatal("the migration's transaction leaves its version dirty")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if !dirty(db) {
		t.Fatal("the clean mark outlived its migration's rollback")
	}
}
