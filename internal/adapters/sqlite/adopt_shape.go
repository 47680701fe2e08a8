package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
)

// legacyShape is the original's last schema: every table its migrations leave (event_queue
// only on the database bus) with its columns. Adoption compares the database with it before
// anything is written: a table or column of it that is missing refuses the adoption (the
// conversion reads them); a table or column it does not have is kept or dropped, and the log
// says which (see legacyShapeReport).
var legacyShape = map[string][]string{
	legacyVersionsTable: {"version", "description", "installed_on", "success", "checksum", "execution_time"},
	"movies":            {"id", "external_metadata_id", "title", "release_year", "director", "poster_path"},
	"reviews": {"id", "movie_id", "user_id", "rating", "comment", "watched_at", "created_at", "remote_actor_url", "ap_id",
		"watch_medium"},
	"users": {"id", "email", "username", "password_hash", "created_at", "role", "bio", "avatar_path", "banner_path",
		"also_known_as", "display_name"},
	"ap_followers": {"local_user_id", "remote_actor_url", "status", "created_at", "follow_activity_id"},
	"ap_following": {"local_user_id", "remote_actor_url", "created_at", "follow_activity_id", "status"},
	"ap_remote_actors": {"url", "handle", "inbox_url", "shared_inbox_url", "display_name", "fetched_at", "avatar_url",
		"outbox_url", "bio", "banner_url", "followers_url", "following_url", "also_known_as"},
	"ap_local_actors": {"user_id", "public_key", "private_key", "created_at"},
	"import_sessions": {"id", "user_id", "parsed_data", "field_mappings", "row_results", "created_at", "expires_at"},
	"import_profiles": {"id", "user_id", "name", "field_mappings", "created_at"},
	"ap_announces":    {"id", "object_url", "actor_url", "announced_at"},
	"blocked_domains": {"domain", "reason", "blocked_at"},
	"blocked_actors":  {"local_user_id", "remote_actor_url", "blocked_at"},
	"movie_profiles": {"movie_id", "tmdb_id", "imdb_id", "overview", "tagline", "runtime_minutes", "budget_usd",
		"revenue_usd", "vote_average", "vote_count", "original_language", "collection_name", "enriched_at"},
	"movie_genres":   {"movie_id", "tmdb_id", "name"},
	"movie_keywords": {"movie_id", "tmdb_id", "name"},
	"movie_cast":     {"movie_id", "tmdb_person_id", "name", "character", "billing_order", "profile_path"},
	"movie_crew":     {"movie_id", "tmdb_person_id", "name", "job", "department", "profile_path"},
	"persons": {"id", "external_id", "tmdb_person_id", "name", "known_for_department", "profile_path", "biography",
		"birthday", "deathday", "place_of_birth", "also_known_as", "homepage", "imdb_id", "enriched_at"},
	"movies_fts":        nil, // FTS5, dropped with its shadow tables (movies_fts_data, …)
	"people_fts":        nil,
	"watchlist_entries": {"id", "user_id", "movie_id", "added_at"},
	"ap_remote_watchlist_entries": {"ap_id", "actor_url", "movie_title", "release_year", "external_metadata_id",
		"poster_url", "added_at"},
	"user_profile_fields": {"id", "user_id", "name", "value", "position"},
	"ap_activities":       {"id", "processed_at"},
	"webhook_tokens":      {"id", "user_id", "token_hash", "provider", "label", "created_at", "last_used_at"},
	"watch_events": {"id", "user_id", "movie_id", "title", "year", "external_metadata_id", "source", "watched_at", "status",
		"created_at"},
	"wrap_up_records": {"id", "user_id", "start_date", "end_date", "status", "report_json", "error_message", "created_at",
		"completed_at"},
	"goals":            {"id", "user_id", "year", "target_count", "goal_type", "created_at"},
	"user_settings":    {"user_id", "federate_goals", "federate_reviews", "federate_watchlist"},
	"remote_goals":     {"ap_id", "actor_url", "year", "target_count", "current_count", "received_at"},
	"refresh_sessions": {"id", "user_id", "token", "expires_at", "created_at"},
	"event_queue": {"id", "event_type", "payload", "status", "attempts", "created_at", "next_attempt_at",
		"last_error"},
}

// legacyCarriedLater are the legacy tables migrations above adoptVersion carry and then drop
// (0185–0187): a column of theirs that they do not name is dropped with them.
var legacyCarriedLater = []string{"webhook_tokens", "watch_events", "import_profiles"}

// extraColumn is a column the original's last schema does not have, with how many rows hold a
// value in it.
type extraColumn struct {
	table, column string
	values        int64
}

// shapeDiff is what a database has beyond the original's last schema.
type shapeDiff struct {
	tables  []string      // tables it does not have (renamed legacy_<name> and kept as they are)
	columns []extraColumn // columns of its tables it does not have
}

// checkLegacyShape compares the database's tables and columns with legacyShape (event_queue
// expected when queue): what is missing refuses the adoption, naming it; what is extra is
// returned.
func checkLegacyShape(ctx context.Context, db *sql.DB, queue bool) (shapeDiff, error) {
	var diff shapeDiff
	tables, err := queryStrings(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		AND name <> '`+migrationsTable+`' ORDER BY name`)
	if err != nil {
		return diff, fmt.Errorf("read schema: %w", err)
	}
	var missing []string
	for name, cols := range legacyShape {
		if !slices.Contains(tables, name) && !slices.Contains(legacyDropped, name) && (name != "event_queue" || queue) {
			missing = append(missing, "table "+name)
			continue
		}
		if cols == nil || slices.Contains(legacyDropped, name) || !slices.Contains(tables, name) {
			continue
		}
		have, err := queryStrings(ctx, db, `SELECT name FROM pragma_table_info(?)`, name)
		if err != nil {
			return diff, fmt.Errorf("read columns of %s: %w", name, err)
		}
		for _, c := range cols {
			if !slices.Contains(have, c) {
				missing = append(missing, "column "+name+"."+c)
			}
		}
		for _, c := range have {
			if slices.Contains(cols, c) {
				continue
			}
			var n int64
			if err := db.QueryRowContext(ctx, `SELECT count("`+c+`") FROM "`+name+`"`).Scan(&n); err != nil {
				return diff, fmt.Errorf("count %s.%s: %w", name, c, err)
			}
			diff.columns = append(diff.columns, extraColumn{name, c, n})
		}
	}
	for _, name := range tables {
		if _, ok := legacyShape[name]; ok || ftsShadow(name) {
			continue
		}
		diff.tables = append(diff.tables, name)
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return diff, fmt.Errorf("not movies-diary's last schema, it lacks %s: adopt a database its last release left; nothing was changed",
			strings.Join(missing, ", "))
	}
	slices.SortFunc(diff.columns, func(a, b extraColumn) int {
		return strings.Compare(a.table+"."+a.column, b.table+"."+b.column)
	})
	return diff, nil
}

// ftsShadow reports whether name is a shadow table of the original's FTS5 indexes, dropped
// with them.
func ftsShadow(name string) bool {
	return strings.HasPrefix(name, "movies_fts_") || strings.HasPrefix(name, "people_fts_")
}

// keptTable is a legacy table the conversion leaves, with its rows and why it stays.
type keptTable struct {
	table  string
	rows   int64
	reason string
}

// legacyShapeReport says, inside the conversion's transaction and after it carried the rows,
// which legacy tables stay (with rows) and what became of every extra column: kept in its
// legacy table or dropped.
func legacyShapeReport(ctx context.Context, tx *sqlx.Tx, diff shapeDiff, partial []string) (kept []keptTable,
	keptCols, droppedCols []extraColumn, err error) {
	names, err := queryStrings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'legacy\_%' ESCAPE '\'
		ORDER BY name`)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, n := range names {
		orig := strings.TrimPrefix(n, "legacy_")
		if orig == legacyVersionsTable || slices.Contains(legacyCarriedLater, orig) {
			continue // the migration record; tables the migrations above adoptVersion carry
		}
		var rows int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM "`+n+`"`).Scan(&rows); err != nil {
			return nil, nil, nil, fmt.Errorf("count %s: %w", n, err)
		}
		if rows == 0 {
			continue
		}
		reason := "holds data this version has no place for"
		switch {
		case slices.Contains(diff.tables, orig):
			reason = "not a table of movies-diary's last schema: kept as it was, nothing reads it"
		case slices.Contains(partial, n):
			reason = "some of its rows could not be carried"
		}
		kept = append(kept, keptTable{n, rows, reason})
	}
	for _, c := range diff.columns {
		table := "legacy_" + c.table
		if c.table == "event_queue" {
			table = c.table
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, c.column).Scan(&n); err != nil {
			return nil, nil, nil, fmt.Errorf("read columns of %s: %w", table, err)
		}
		if n > 0 && !slices.Contains(legacyCarriedLater, c.table) {
			keptCols = append(keptCols, extraColumn{table, c.column, c.values})
		} else {
			droppedCols = append(droppedCols, c)
		}
	}
	return kept, keptCols, droppedCols, nil
}

// logLegacyShape writes what the conversion kept and dropped beyond what it carried: a warning
// for every kept legacy table with rows, every unknown column kept in one, and every unknown
// column dropped (its values are in the backup only).
func logLegacyShape(log *slog.Logger, rep adoptReport, backup string) {
	for _, k := range rep.keptTables {
		log.Warn("kept original table", "table", k.table, "rows", k.rows, "reason", k.reason)
	}
	for _, c := range rep.keptColumns {
		log.Warn("kept column not in movies-diary's last schema", "table", c.table, "column", c.column, "values", c.values)
	}
	for _, c := range rep.droppedColumns {
		log.Warn("dropped column not in movies-diary's last schema: its values are only in the backup", "table", c.table,
			"column", c.column, "values", c.values, "backup", backup)
	}
}
