package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// dialect is PostgreSQL's side of the shared repositories' seam (sqlstore.Dialect): writes take
// a pooled connection, and lock the rows they decide on, since writers on several hosts run at
// once; statements are rebound to $1, $2, … once each and remembered.
type dialect struct {
	s      *Store
	bound  sync.Map // statement with ? → with $n
	nbound atomic.Int64
}

// maxBound bounds the statements Rebind remembers: those built per call (IN lists of varying
// length, search filters) are rebound each time once it is full.
const maxBound = 2048

func (d *dialect) Write(ctx context.Context, fn func(*sqlx.Tx) error) error {
	return d.s.write(ctx, fn)
}

func (d *dialect) WriteAlone(ctx context.Context, fn func(*sqlx.Tx) error) error {
	return d.s.write(ctx, fn)
}

func (*dialect) UniqueViolation(err error) (string, bool) { return uniqueConstraint(err) }
func (*dialect) SearchDocuments() (movies, people string) { return upsertMovieDocs, upsertPeopleDocs }

// Wake announces the transaction's commit to the queues' LISTEN connection, after the commit.
func (d *dialect) Wake(_ context.Context, tx *sqlx.Tx) error {
	d.s.woke.Store(tx, struct{}{})
	return nil
}

func (*dialect) ReusesIDs() bool { return false }

func (*dialect) Deadlock(err error) bool { return isDeadlock(err) }
func (*dialect) LocksRows() bool         { return true }

func (*dialect) SameText(col string) string     { return "lower(" + col + ") = lower(?)" }
func (*dialect) NoCase(col string) string       { return "lower(" + col + ")" }
func (*dialect) Binary(col string) string       { return col + ` COLLATE "C"` }
func (*dialect) Like() string                   { return "ILIKE" }
func (*dialect) IfNull(expr, alt string) string { return "coalesce(" + expr + ", " + alt + ")" }
func (*dialect) TieBreak(table string) string   { return table + `.id COLLATE "C"` }
func (*dialect) JSONArrayOf(fields [][2]string, from, order string) string {
	var obj []string
	for _, f := range fields {
		obj = append(obj, "'"+f[0]+"', "+f[1])
	}
	return "COALESCE((SELECT json_agg(json_build_object(" + strings.Join(obj, ", ") + ") ORDER BY " + order +
		") FROM " + from + "), '[]')::text"
}

func (*dialect) IntsFromJSON() string {
	return "SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text(CAST(? AS JSONB))"
}
func (*dialect) Greatest() string { return "greatest" }
func (*dialect) RowID() string    { return "id" }
func (*dialect) JSONElements(col, alias string) string {
	return "jsonb_array_elements_text(" + col + "::jsonb) AS " + alias + " (value)"
}
func (*dialect) FixedJoin() string          { return "JOIN" }
func (*dialect) PadYear(year string) string { return "lpad((" + year + ")::text, 4, '0')" }

func (*dialect) NoIndex(col string) string { return col }

// Values unnests one array per column: the statement's text, and so its prepared plan, is the
// same for any number of rows.
func (*dialect) Values(alias string, types []string, rows [][]any) (string, []any) {
	arrays, cols := make([]string, len(types)), make([]string, len(types))
	args := make([]any, len(types))
	for c, t := range types {
		arrays[c], cols[c] = "CAST(? AS "+t+"[])", "column"+strconv.Itoa(c+1)
		switch t {
		case "bigint":
			col := make([]int64, len(rows))
			for i, r := range rows {
				col[i] = toInt64(r[c])
			}
			args[c] = col
		default:
			col := make([]string, len(rows))
			for i, r := range rows {
				col[i] = fmt.Sprint(r[c])
			}
			args[c] = col
		}
	}
	return "unnest(" + strings.Join(arrays, ", ") + ") AS " + alias + " (" + strings.Join(cols, ", ") + ")", args
}

// toInt64 is an integer argument of Values as int64.
func toInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case int32:
		return int64(n)
	}
	panic(fmt.Sprintf("postgres: Values: %T in a bigint column", v))
}

// Rebind turns ? into $n, remembering the result: most statements are constants.
func (d *dialect) Rebind(query string) string {
	if b, ok := d.bound.Load(query); ok {
		return b.(string)
	}
	b := sqlx.Rebind(sqlx.DOLLAR, query)
	if d.nbound.Load() < maxBound {
		d.nbound.Add(1)
		d.bound.Store(query, b)
	}
	return b
}

// deadlockDetected is PostgreSQL's SQLSTATE for a transaction aborted to break a deadlock.
const deadlockDetected = "40P01"

// isDeadlock reports whether err is a transaction aborted to break a deadlock.
func isDeadlock(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == deadlockDetected
}
