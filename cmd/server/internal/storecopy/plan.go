package storecopy

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// table is one table to copy: the columns both schemas have (PostgreSQL's generated ones left
// out), how each value converts, and the identity sequences to move past the copied ids.
type table struct {
	name      string
	columns   []column
	sequences []sequence
}

// column is a column both tables have, with the conversion of its values.
type column struct {
	name    string
	convert converter
}

// sequence is a PostgreSQL identity or serial sequence owned by column of its table.
type sequence struct {
	name   string // schema-qualified, as pg_get_serial_sequence returns it
	column string
}

// skipped reports whether a SQLite table is one of SQLite's own or the migrator's, which have no
// PostgreSQL twin by design, and why. Any other table without a twin stops the copy: data would
// be left behind.
func skipped(name, createSQL string, virtual map[string]bool) (string, bool) {
	switch {
	case name == "schema_migrations":
		// golang-migrate's version table: the destination has its own, written by its migrations.
		return "the migration version", true
	case name == "sqlite_sequence":
		// AUTOINCREMENT's counters: PostgreSQL's identity sequences are set past the copied ids instead.
		return "SQLite's AUTOINCREMENT counters", true
	case strings.HasPrefix(strings.ToUpper(strings.TrimSpace(createSQL)), "CREATE VIRTUAL TABLE"):
		// FTS5 indexes (movies_fts, people_fts): PostgreSQL searches generated tsvector columns of
		// search_movies and search_people, computed from the copied rows.
		return "an FTS5 index", true
	case name == "legacy_watch_dedup":
		// A work list of migration 0186 that the start-up applying it empties and drops
		// (rekeyAdoptedWatches in the SQLite adapter); it is dropped even while still there.
		return "a migration's work list", true
	}
	for v := range virtual {
		// FTS5's shadow tables (movies_fts_data, _idx, _docsize, _config): its storage.
		if strings.HasPrefix(name, v+"_") {
			return "an FTS5 index's storage", true
		}
	}
	return "", false
}

// sqliteTables lists the source's tables with their CREATE statements.
func sqliteTables(ctx context.Context, tx *sql.Tx) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, fmt.Errorf("list the SQLite tables: %w", err)
	}
	defer rows.Close()
	tables := map[string]string{}
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			return nil, err
		}
		tables[name] = create
	}
	return tables, rows.Err()
}

// sqliteColumns is table's columns and their declared types, upper-cased.
func sqliteColumns(ctx context.Context, tx *sql.Tx, name string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, upper(type) FROM pragma_table_info(?)`, name)
	if err != nil {
		return nil, fmt.Errorf("read the columns of SQLite table %s: %w", name, err)
	}
	defer rows.Close()
	cols := map[string]string{}
	for rows.Next() {
		var col, typ string
		if err := rows.Scan(&col, &typ); err != nil {
			return nil, err
		}
		cols[col] = typ
	}
	return cols, rows.Err()
}

// pgColumn is a column of a PostgreSQL table.
type pgColumn struct {
	name      string
	udt       string // the type's name: text, citext, int8, bool, bytea, tsvector, …
	generated bool
	sequence  string // the owned identity or serial sequence, "" for none
}

// pgTables is every base table of the destination's schema with its columns in order.
func pgTables(ctx context.Context, tx pgx.Tx) (map[string][]pgColumn, error) {
	rows, err := tx.Query(ctx, `
		SELECT c.table_name, c.column_name, c.udt_name, c.is_generated <> 'NEVER',
			coalesce(pg_get_serial_sequence(format('%I.%I', c.table_schema, c.table_name), c.column_name), '')
		FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, fmt.Errorf("list the PostgreSQL tables: %w", err)
	}
	defer rows.Close()
	tables := map[string][]pgColumn{}
	for rows.Next() {
		var t string
		var c pgColumn
		if err := rows.Scan(&t, &c.name, &c.udt, &c.generated, &c.sequence); err != nil {
			return nil, err
		}
		tables[t] = append(tables[t], c)
	}
	return tables, rows.Err()
}

// foreignKeys maps each destination table to the tables its foreign keys reference.
func foreignKeys(ctx context.Context, tx pgx.Tx) (map[string][]string, error) {
	rows, err := tx.Query(ctx, `
		SELECT c.relname, r.relname FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid
		JOIN pg_class r ON r.oid = k.confrelid
		WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, fmt.Errorf("list the PostgreSQL foreign keys: %w", err)
	}
	defer rows.Close()
	refs := map[string][]string{}
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, err
		}
		refs[from] = append(refs[from], to)
	}
	return refs, rows.Err()
}

// plan is the tables to copy, each after the tables it references (foreign keys stay checked
// while copying), and the SQLite tables skipped with the reason.
func plan(ctx context.Context, src *sql.Tx, dst pgx.Tx) ([]table, map[string]string, error) {
	srcTables, err := sqliteTables(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	dstTables, err := pgTables(ctx, dst)
	if err != nil {
		return nil, nil, err
	}
	virtual := map[string]bool{}
	for name, create := range srcTables {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(create)), "CREATE VIRTUAL TABLE") {
			virtual[name] = true
		}
	}
	skips := map[string]string{}
	var tables []table
	for _, name := range slices.Sorted(maps.Keys(srcTables)) {
		if why, ok := skipped(name, srcTables[name], virtual); ok {
			skips[name] = why
			continue
		}
		pgCols, ok := dstTables[name]
		if !ok {
			return nil, nil, fmt.Errorf("SQLite table %s has no PostgreSQL twin: this version cannot move it", name)
		}
		srcCols, err := sqliteColumns(ctx, src, name)
		if err != nil {
			return nil, nil, err
		}
		t := table{name: name}
		for _, c := range pgCols {
			srcType, both := srcCols[c.name]
			if !both || c.generated {
				continue // PostgreSQL-only: its default; generated: computed from the others
			}
			conv, err := converterFor(srcType, c.udt)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.%s: %w", name, c.name, err)
			}
			t.columns = append(t.columns, column{name: c.name, convert: conv})
			if c.sequence != "" {
				t.sequences = append(t.sequences, sequence{name: c.sequence, column: c.name})
			}
		}
		for col := range srcCols {
			if !slices.ContainsFunc(pgCols, func(c pgColumn) bool { return c.name == col }) {
				return nil, nil, fmt.Errorf("column %s.%s has no PostgreSQL twin: this version cannot move it", name, col)
			}
		}
		tables = append(tables, t)
	}
	refs, err := foreignKeys(ctx, dst)
	if err != nil {
		return nil, nil, err
	}
	ordered, err := referencedFirst(tables, refs)
	return ordered, skips, err
}

// referencedFirst orders tables so each comes after every table it references (by name within
// a rank, for a stable order); a cycle is an error.
func referencedFirst(tables []table, refs map[string][]string) ([]table, error) {
	pending := slices.Clone(tables)
	done := map[string]bool{}
	var ordered []table
	for len(pending) > 0 {
		var next []table
		for _, t := range pending {
			ready := true
			for _, r := range refs[t.name] {
				if r != t.name && !done[r] && slices.ContainsFunc(pending, func(p table) bool { return p.name == r }) {
					ready = false
				}
			}
			if ready {
				ordered = append(ordered, t)
			} else {
				next = append(next, t)
			}
		}
		if len(next) == len(pending) {
			return nil, fmt.Errorf("the foreign keys of %s reference each other in a cycle", pending[0].name)
		}
		for _, t := range ordered {
			done[t.name] = true
		}
		pending = next
	}
	return ordered, nil
}
