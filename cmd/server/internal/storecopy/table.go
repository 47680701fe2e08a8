package storecopy

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copyTable streams t's rows from the source into the destination with COPY, converting each
// value on the way; memory holds one row and pgx's send buffer, whatever the table's size.
func copyTable(ctx context.Context, src *sql.Tx, dst pgx.Tx, t table) (int64, error) {
	names := make([]string, len(t.columns))
	quoted := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i], quoted[i] = c.name, ident(c.name)
	}
	rows, err := src.QueryContext(ctx, "SELECT "+strings.Join(quoted, ", ")+" FROM "+ident(t.name))
	if err != nil {
		return 0, fmt.Errorf("source: read %s: %w", t.name, err)
	}
	defer rows.Close()
	rs := newRowSource(rows, t)
	n, err := dst.CopyFrom(ctx, pgx.Identifier{t.name}, names, rs)
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", t.name, err)
	}
	if n != rs.n {
		return 0, fmt.Errorf("copy %s: read %d rows, the destination took %d", t.name, rs.n, n)
	}
	return n, nil
}

// rowSource is a table's source rows as pgx.CopyFromSource.
type rowSource struct {
	rows *sql.Rows
	t    table
	raw  []any // the row as the SQLite driver reads it
	ptrs []any // pointers into raw, for Scan
	out  []any // the row converted
	n    int64
	err  error
}

func newRowSource(rows *sql.Rows, t table) *rowSource {
	rs := &rowSource{rows: rows, t: t, raw: make([]any, len(t.columns)), ptrs: make([]any, len(t.columns)),
		out: make([]any, len(t.columns))}
	for i := range rs.raw {
		rs.ptrs[i] = &rs.raw[i]
	}
	return rs
}

func (r *rowSource) Next() bool {
	if r.err != nil || !r.rows.Next() {
		return false
	}
	if err := r.rows.Scan(r.ptrs...); err != nil {
		r.err = fmt.Errorf("source: read %s: %w", r.t.name, err)
		return false
	}
	for i, c := range r.t.columns {
		v, err := c.convert(r.raw[i])
		if err != nil {
			r.err = fmt.Errorf("%s.%s, row %d: %w", r.t.name, c.name, r.n+1, err)
			return false
		}
		r.out[i] = v
	}
	r.n++
	return true
}

func (r *rowSource) Values() ([]any, error) { return r.out, nil }

func (r *rowSource) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}
