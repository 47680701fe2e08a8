package sqlite

import (
	"context"
	"database/sql"

	"moviesdiary/internal/adapters/sqlstore/legacy"
)

// inspector reads the schema for the comparison with the original's last schema
// (legacy.Engine.CompareShape, legacy.Report), in a transaction or on a handle.
type inspector struct {
	q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}
}

func (i inspector) Tables(ctx context.Context) ([]string, error) {
	return legacy.Strings(ctx, i.q, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY name`)
}

func (i inspector) Columns(ctx context.Context, table string) ([]string, error) {
	return legacy.Strings(ctx, i.q, `SELECT name FROM pragma_table_info(?)`, table)
}

func (i inspector) Values(ctx context.Context, table, column string) (int64, error) {
	c := "*"
	if column != "" {
		c = `"` + column + `"`
	}
	var n int64
	err := i.q.QueryRowContext(ctx, `SELECT count(`+c+`) FROM "`+table+`"`).Scan(&n)
	return n, err
}

// checkLegacyShape compares the database's tables and columns with the original's last
// schema (event_queue expected when queue): what is missing refuses the adoption, naming it;
// what is extra is returned.
func checkLegacyShape(ctx context.Context, db *sql.DB, queue bool) (legacy.Diff, error) {
	return legacy.SQLite.CompareShape(ctx, inspector{db}, queue)
}
