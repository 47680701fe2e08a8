package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// driverName is go-sqlite3 with temp_store in memory on every connection, as moviesdiary's
// store opens its connections (the DSN has no parameter for it).
const driverName = "sqlite3_river_bench"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec("PRAGMA temp_store = MEMORY", nil)
		return err
	}})
}

// openDB creates a fresh SQLite file in dir with moviesdiary's settings (WAL,
// synchronous=NORMAL, a 10 s busy timeout, foreign keys, BEGIN IMMEDIATE) on one connection, as
// riversqlite asks, and migrates River's tables into it.
func openDB(ctx context.Context, dir, name string) (*sql.DB, error) {
	v := url.Values{}
	v.Set("_journal_mode", "WAL")
	v.Set("_synchronous", "NORMAL")
	v.Set("_busy_timeout", "10000")
	v.Set("_foreign_keys", "on")
	v.Set("_txlock", "immediate")
	db, err := sql.Open(driverName, "file:"+filepath.Join(dir, name+".db")+"?"+v.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err == nil {
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	return db, nil
}

// sqliteBackend is River on riversqlite, a file per store in dir; commit→work is offered by two
// producers, as cmd/bench's latency scenario.
func sqliteBackend(dir string) backend[*sql.Tx] {
	return backend[*sql.Tx]{producers: 2, open: func(ctx context.Context, name string) (*store[*sql.Tx], error) {
		db, err := openDB(ctx, dir, name)
		if err != nil {
			return nil, err
		}
		return &store[*sql.Tx]{
			driver:   riversqlite.New(db),
			begin:    func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
			commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
			rollback: func(_ context.Context, tx *sql.Tx) { tx.Rollback() },
			createReviews: func(ctx context.Context) error {
				_, err := db.ExecContext(ctx, `CREATE TABLE review (
					id INTEGER PRIMARY KEY,
					user_id INTEGER NOT NULL,
					movie_id INTEGER NOT NULL,
					rating INTEGER NOT NULL,
					body TEXT NOT NULL)`)
				return err
			},
			insertReview: func(ctx context.Context, tx *sql.Tx, user, movie, rating int, body string) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO review (user_id, movie_id, rating, body) VALUES (?, ?, ?, ?)`,
					user, movie, rating, body)
				return err
			},
			close: func() { db.Close() },
		}, nil
	}}
}
