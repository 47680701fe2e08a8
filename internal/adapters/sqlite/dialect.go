package sqlite

import (
	"context"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// dialect is SQLite's side of the shared repositories' seam (sqlstore.Dialect): writes go
// through the one writer connection, grouped; nothing locks rows, since that writer serialises
// every write transaction; statements keep their ? placeholders.
type dialect struct{ s *Store }

func (d dialect) Write(ctx context.Context, fn func(*sqlx.Tx) error) error {
	return d.s.writeGrouped(ctx, fn)
}

func (d dialect) WriteAlone(ctx context.Context, fn func(*sqlx.Tx) error) error {
	return d.s.writeAlone(ctx, fn)
}

// UniqueViolation names the constraint by its columns, as SQLite's message does ("UNIQUE
// constraint failed: users.email" gives "users.email").
func (dialect) UniqueViolation(err error) (string, bool) {
	if !isUnique(err) {
		return "", false
	}
	_, cols, _ := strings.Cut(err.Error(), "failed: ")
	return cols, true
}

func (dialect) SearchDocuments() (movies, people string) { return upsertMovieDocs, upsertPeopleDocs }

func (dialect) Wake(context.Context, *sqlx.Tx) error { return nil }
func (dialect) ReusesIDs() bool                      { return true }

func (dialect) Deadlock(error) bool            { return false }
func (dialect) LocksRows() bool                { return false }
func (dialect) Rebind(query string) string     { return query }
func (dialect) SameText(col string) string     { return col + " = ? COLLATE NOCASE" }
func (dialect) NoCase(col string) string       { return col + " COLLATE NOCASE" }
func (dialect) Binary(col string) string       { return col }
func (dialect) Like() string                   { return "LIKE" }
func (dialect) IfNull(expr, alt string) string { return "ifnull(" + expr + ", " + alt + ")" }
func (dialect) TieBreak(table string) string   { return table + ".rowid" }
func (dialect) JSONArrayOf(fields [][2]string, from, order string) string {
	var obj, cols []string
	for i, f := range fields {
		c := "c" + strconv.Itoa(i)
		obj, cols = append(obj, "'"+f[0]+"', "+c), append(cols, f[1]+" AS "+c)
	}
	return "ifnull((SELECT json_group_array(json_object(" + strings.Join(obj, ", ") + ")) FROM (SELECT " +
		strings.Join(cols, ", ") + " FROM " + from + " ORDER BY " + order + ")), '[]')"
}

func (dialect) IntsFromJSON() string                  { return "SELECT value FROM json_each(?)" }
func (dialect) Greatest() string                      { return "max" }
func (dialect) RowID() string                         { return "rowid" }
func (dialect) JSONElements(col, alias string) string { return "json_each(" + col + ") " + alias }
func (dialect) FixedJoin() string                     { return "CROSS JOIN" }
func (dialect) PadYear(year string) string            { return "printf('%04d', " + year + ")" }
func (dialect) NoIndex(col string) string             { return "+" + col }

func (dialect) Values(alias string, types []string, rows [][]any) (string, []any) {
	row := "(?" + strings.Repeat(", ?", len(types)-1) + ")"
	args := make([]any, 0, len(types)*len(rows))
	for _, r := range rows {
		args = append(args, r...)
	}
	return "(VALUES " + row + strings.Repeat(", "+row, len(rows)-1) + ") AS " + alias, args
}
