package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // reads PostgreSQL for the checks
	_ "github.com/mattn/go-sqlite3"    // reads SQLite for the checks

	"moviesdiary/internal/adapters/postgres/pgtest"
)

// database is where one chaos round's servers and workers keep their data: a SQLite file in the
// round's directory, or a throwaway PostgreSQL cluster that the faults restart.
type database struct {
	// url is the binaries' DATABASE_URL.
	url string
	// driver and dsn open it for the checks.
	driver, dsn string
	// rowKey tells two rows of chaos_recordings (which has no key) apart in a self-join.
	rowKey string
	// pg is the PostgreSQL cluster, nil on SQLite.
	pg *pgtest.Server
}

// openDatabase prepares the store the round runs on: "sqlite" (a file in dir) or "postgres" (a
// new cluster with PostgreSQL's durable defaults, fsync and synchronous_commit on, so a write
// the client saw succeed survives a crash of PostgreSQL).
func openDatabase(ctx context.Context, store, dir string) (*database, error) {
	if store == "sqlite" {
		path := filepath.Join(dir, "chaos.db")
		return &database{url: path, driver: "sqlite3", dsn: "file:" + path + "?_busy_timeout=10000&mode=ro", rowKey: "rowid"}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// Five processes of up to DATABASE_MAX_CONNS (20) each, plus their LISTEN connections and
	// the checks.
	pg, err := pgtest.StartDurable(ctx, "max_connections = 200")
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	url, err := pg.CreateDatabase(ctx, "chaos")
	if err != nil {
		pg.Stop()
		return nil, err
	}
	return &database{url: url, driver: "pgx", dsn: url, rowKey: "ctid", pg: pg}, nil
}

// open opens the database for the checks.
func (d *database) open() (*sql.DB, error) { return sql.Open(d.driver, d.dsn) }

// close stops PostgreSQL and removes its cluster; SQLite's file goes with the round's directory.
func (d *database) close() error {
	if d.pg == nil {
		return nil
	}
	return d.pg.Stop()
}

// exported is what -keep writes out of PostgreSQL, whose cluster goes at the end of the round:
// the tables the checks read, as CSV files in the round's directory.
var exported = []string{"event_queue", "processed_events", "chaos_recordings", "chaos_handlers"}

// export writes each of exported into dir as <table>.csv (PostgreSQL only; SQLite's file stays).
func (d *database) export(db *sql.DB, dir string) error {
	if d.pg == nil {
		return nil
	}
	for _, table := range exported {
		if err := exportTable(db, table, filepath.Join(dir, table+".csv")); err != nil {
			return err
		}
	}
	return nil
}

func exportTable(db *sql.DB, table, path string) error {
	rows, err := db.Query(`SELECT * FROM ` + table)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := csv.NewWriter(f)
	w.Write(cols)
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	rec := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			rec[i] = v.String
		}
		w.Write(rec)
	}
	w.Flush()
	return errors.Join(rows.Err(), w.Error())
}
