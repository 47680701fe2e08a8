package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// dataVersion answers DataVersion from a connection of its own: PRAGMA data_version counts the
// commits of every other connection (this process's writer, the worker, another server), so the
// connection must never write itself.
type dataVersion struct {
	once sync.Once
	db   *sql.DB
	stmt *sql.Stmt
	err  error
}

// DataVersion is a number that changes whenever anything commits to the database, read from
// shared memory (a couple of microseconds). A response rendered after reading version v shows
// every commit up to v, so it may be served again for as long as DataVersion still answers v:
// the HTTP layer's cache of hot public documents is invalidated by the commit itself, whoever
// wrote it.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	d := &s.version
	d.once.Do(func() {
		if d.db, d.err = openWatchDB(s.path); d.err != nil {
			return
		}
		d.stmt, d.err = d.db.PrepareContext(ctx, "PRAGMA data_version")
	})
	if d.err != nil {
		return 0, d.err
	}
	var v int64
	err := d.stmt.QueryRowContext(ctx).Scan(&v)
	return v, err
}

func (d *dataVersion) close() error {
	if d.db == nil {
		return nil
	}
	d.stmt.Close()
	return d.db.Close()
}
