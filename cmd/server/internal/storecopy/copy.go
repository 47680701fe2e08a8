// Package storecopy moves a moviesdiary instance from its SQLite file into an empty PostgreSQL
// database (`server migrate-store`): every table the two schemas share, the outbox with its
// pending rows and the processed-event ledger included, in one PostgreSQL transaction whose row
// counts are verified before it commits. It knows both store adapters, which only a
// composition root may (DESIGN.md), so it lives inside cmd/server: Go's internal rule keeps
// every other package from importing it, and the import rules test allows cmd/** its adapters.
package storecopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/mattn/go-sqlite3" // the "sqlite3" database/sql driver

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/sqlite"
)

// ErrNotEmpty is returned by Copy when a table of the destination has rows: it copies into an
// empty database only, and leaves any other untouched.
var ErrNotEmpty = errors.New("storecopy: the destination database is not empty")

// Options tune Copy.
type Options struct {
	// DryRun copies and verifies everything, then rolls the destination back: it is left migrated
	// but empty.
	DryRun bool
	// Log receives the destination's migration lines (nil: discarded).
	Log *slog.Logger
}

// Count is the number of rows of a copied table, the same in the source and the destination.
type Count struct {
	Table string
	Rows  int64
}

// Report is what Copy did.
type Report struct {
	SchemaVersion uint              // the source's (and the destination's) schema version
	Counts        []Count           // every copied table, in copy order
	Skipped       map[string]string // SQLite tables with no PostgreSQL twin by design, and why
}

// Copy copies the SQLite database at srcPath into the PostgreSQL database at dstURL, which it
// migrates first and which must then be empty. The source must be migrated to this binary's
// latest schema and used by no process (server and workers stopped); it is only read, in one
// read transaction that also keeps writers out. The destination is written in one transaction:
// any failure, including a row count that differs from the source's, leaves it empty.
func Copy(ctx context.Context, srcPath, dstURL string, opts Options) (Report, error) {
	if !postgres.IsURL(dstURL) {
		return Report{}, errors.New("storecopy: the destination must be a postgres:// or postgresql:// URL")
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	src, srcTx, version, err := openSource(ctx, srcPath)
	if err != nil {
		return Report{}, err
	}
	defer src.Close()
	defer srcTx.Rollback() //nolint:errcheck // read-only

	dst, err := openDestination(ctx, dstURL, log)
	if err != nil {
		return Report{}, err
	}
	defer dst.Close(context.Background())
	tx, err := dst.Begin(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("destination: begin: %w", err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // after a commit it does nothing

	tables, skipped, err := plan(ctx, srcTx, tx)
	if err != nil {
		return Report{}, err
	}
	// Triggers are off while copying: the derived tables they maintain (review_counts,
	// following_feed, movie_review_stats) are copied as they are, like every other table, so
	// the destination equals the source row for row, and firing the triggers as well would count
	// every review twice. Letting the triggers rebuild them instead (copying only the tables
	// they derive from) would run a plpgsql fan-out per review and could only reproduce the
	// source's rows, not keep them. Disabling USER triggers leaves the foreign-key checks on
	// (hence the copy order); the outbox's NOTIFY trigger is off too, which costs nothing: the
	// workers look for pending rows when they start. ALTER TABLE is transactional and locks each
	// table until the commit, so nothing writes into it between the emptiness check and the copy.
	for _, t := range tables {
		if _, err := tx.Exec(ctx, "ALTER TABLE "+ident(t.name)+" DISABLE TRIGGER USER"); err != nil {
			return Report{}, fmt.Errorf("destination: disable the triggers of %s: %w", t.name, err)
		}
	}
	if err := checkEmpty(ctx, tx, tables); err != nil {
		return Report{}, err
	}
	if err := clearDerived(ctx, tx, tables); err != nil {
		return Report{}, err
	}
	report := Report{SchemaVersion: version, Skipped: skipped}
	for _, t := range tables {
		n, err := copyTable(ctx, srcTx, tx, t)
		if err != nil {
			return Report{}, err
		}
		report.Counts = append(report.Counts, Count{Table: t.name, Rows: n})
	}
	for _, t := range tables {
		if _, err := tx.Exec(ctx, "ALTER TABLE "+ident(t.name)+" ENABLE TRIGGER USER"); err != nil {
			return Report{}, fmt.Errorf("destination: enable the triggers of %s: %w", t.name, err)
		}
		for _, s := range t.sequences {
			// The next id the sequence hands out is past every copied one.
			q := "SELECT setval($1, coalesce((SELECT max(" + ident(s.column) + ") FROM " + ident(t.name) + "), 0) + 1, false)"
			if _, err := tx.Exec(ctx, q, s.name); err != nil {
				return Report{}, fmt.Errorf("destination: set %s past the copied ids: %w", s.name, err)
			}
		}
	}
	if err := verify(ctx, srcTx, tx, report.Counts); err != nil {
		return Report{}, err
	}
	if opts.DryRun {
		return report, tx.Rollback(ctx)
	}
	if err := tx.Commit(ctx); err != nil {
		return Report{}, fmt.Errorf("destination: commit: %w", err)
	}
	return report, nil
}

// openSource checks that the SQLite database at path exists, is used by no process and is
// migrated to this binary's version, and opens a read transaction on it: the snapshot every
// table is read from. While it lasts no other process can commit a write (the file is in
// rollback-journal mode after CheckUnused, where a reader blocks writers).
func openSource(ctx context.Context, path string) (*sql.DB, *sql.Tx, uint, error) {
	switch fi, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, 0, fmt.Errorf("%w at %s (check DATA_DIR or DATABASE_URL)", sqlite.ErrNoDatabase, path)
	case err != nil:
		return nil, nil, 0, fmt.Errorf("source: %w", err)
	case fi.IsDir():
		return nil, nil, 0, fmt.Errorf("%w at %s: it is a directory", sqlite.ErrNoDatabase, path)
	}
	if err := sqlite.CheckUnused(ctx, path); err != nil {
		return nil, nil, 0, err
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(path)+"?mode=ro&_query_only=1&_busy_timeout=5000")
	if err != nil {
		return nil, nil, 0, fmt.Errorf("source: open: %w", err)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		db.Close()
		return nil, nil, 0, fmt.Errorf("source: begin: %w", err)
	}
	version, err := sourceVersion(ctx, tx, path)
	if err != nil {
		tx.Rollback() //nolint:errcheck // read-only
		db.Close()
		return nil, nil, 0, err
	}
	return db, tx, version, nil
}

// sourceVersion is the source's schema version, which must be this binary's latest and clean:
// the PostgreSQL schema it is copied into is this binary's.
func sourceVersion(ctx context.Context, tx *sql.Tx, path string) (uint, error) {
	latest, err := sqlite.LatestVersion()
	if err != nil {
		return 0, err
	}
	var v uint
	var dirty bool
	if err := tx.QueryRowContext(ctx, "SELECT version, dirty FROM schema_migrations LIMIT 1").Scan(&v, &dirty); err != nil {
		return 0, fmt.Errorf("%s is not a migrated moviesdiary database: %w", path, err)
	}
	switch {
	case dirty:
		return 0, fmt.Errorf("%s: schema version %d is dirty (a migration failed): start the current server once to "+
			"finish migrating it, then stop it and try again", path, v)
	case v < latest:
		return 0, fmt.Errorf("%s: schema version %d, this binary needs %d: start the current server once to migrate "+
			"it, then stop it and try again", path, v, latest)
	case v > latest:
		return 0, fmt.Errorf("%s: schema version %d is newer than this binary's %d: migrate with the version "+
			"that last ran on it", path, v, latest)
	}
	return v, nil
}

// openDestination migrates the PostgreSQL database at url to this binary's schema and opens a
// connection to copy through (pgx's own, for COPY).
func openDestination(ctx context.Context, url string, log *slog.Logger) (*pgx.Conn, error) {
	s, err := postgres.OpenMigrated(ctx, url, log)
	if err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("destination: connect: %w", err)
	}
	// citext (usernames, e-mails, domains) is an extension's type pgx does not know; its binary
	// form is text's.
	var oid uint32
	switch err := conn.QueryRow(ctx, `SELECT oid FROM pg_type WHERE typname = 'citext'`).Scan(&oid); {
	case err == nil:
		conn.TypeMap().RegisterType(&pgtype.Type{Name: "citext", OID: oid, Codec: pgtype.TextCodec{}})
	case !errors.Is(err, pgx.ErrNoRows):
		conn.Close(ctx)
		return nil, fmt.Errorf("destination: %w", err)
	}
	return conn, nil
}

// derived are the tables the triggers maintain from others (counts of reviews, fan-out of
// follows): the migrations seed some of their rows (review_counts' zero totals), so they are
// not empty in an empty database. Copy clears them once the tables they derive from are found
// empty and copies the source's rows, seeds included.
var derived = map[string]bool{"review_counts": true, "following_feed": true, "movie_review_stats": true}

// checkEmpty refuses a destination where any table to copy but the derived ones has a row,
// naming the first.
func checkEmpty(ctx context.Context, tx pgx.Tx, tables []table) error {
	for _, t := range tables {
		if derived[t.name] {
			continue
		}
		var has bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+ident(t.name)+")").Scan(&has); err != nil {
			return fmt.Errorf("destination: %w", err)
		}
		if has {
			return fmt.Errorf("%w: table %s has rows; migrate into a new, empty database", ErrNotEmpty, t.name)
		}
	}
	return nil
}

// clearDerived empties the derived tables of an otherwise empty destination: what they hold
// is what the migrations seeded.
func clearDerived(ctx context.Context, tx pgx.Tx, tables []table) error {
	for _, t := range tables {
		if derived[t.name] {
			if _, err := tx.Exec(ctx, "DELETE FROM "+ident(t.name)); err != nil {
				return fmt.Errorf("destination: clear %s: %w", t.name, err)
			}
		}
	}
	return nil
}

// verify compares each table's rows in the destination with the source's and with what was
// copied, inside both transactions.
func verify(ctx context.Context, src *sql.Tx, dst pgx.Tx, counts []Count) error {
	for _, c := range counts {
		var inSource, inDest int64
		if err := src.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(c.Table)).Scan(&inSource); err != nil {
			return fmt.Errorf("source: count %s: %w", c.Table, err)
		}
		if err := dst.QueryRow(ctx, "SELECT count(*) FROM "+ident(c.Table)).Scan(&inDest); err != nil {
			return fmt.Errorf("destination: count %s: %w", c.Table, err)
		}
		if inSource != c.Rows || inDest != c.Rows {
			return fmt.Errorf("%s: the source has %d rows, %d were copied and the destination has %d: nothing was kept",
				c.Table, inSource, c.Rows, inDest)
		}
	}
	return nil
}

// ident quotes a table or column name for both SQL dialects.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }
