package legacy

import (
	"context"
	"database/sql"

	"moviesdiary/internal/adapters/sqlrow"
)

// Querier is a transaction or a handle: what Strings reads through.
type Querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// Strings reads the one text column of query's rows, for the adoptions' look-ups of table,
// column and index names and of clashing accounts.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return sqlrow.Column[string](q.QueryContext(ctx, query, args...))
}
