package sqlrow

import "database/sql"

// Column reads the one column of rows (as a query returns them, with its error), closing them:
// for the statements whose answer is a list of ids or names.
func Column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
