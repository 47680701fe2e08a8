package legacy

import (
	"context"
	"database/sql"
)

// Querier is a transaction or a handle: what Strings reads through.
type Querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// Strings reads the one text column of query's rows, for the adoptions' look-ups of table,
// column and index names and of clashing accounts.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
