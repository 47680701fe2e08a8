package postgres

// Row structs are what sqlx scans a query into, column by name, as in the SQLite adapter: they
// stay in the adapter, each converts to its domain type in a small method, and a nullable column
// is a sql.Null turned into the domain's pointer by ptr.

// mapRows converts rows to domain values with conv, stopping at the first error. No rows give
// nil.
func mapRows[R, T any](rows []R, conv func(R) (T, error)) ([]T, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		v, err := conv(r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// castRows is mapRows for conversions that cannot fail.
func castRows[R, T any](rows []R, conv func(R) T) []T {
	if len(rows) == 0 {
		return nil
	}
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		out = append(out, conv(r))
	}
	return out
}
