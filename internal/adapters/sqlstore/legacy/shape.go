package legacy

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
)

// shape is the original's last schema on both engines but for the search tables: every table
// its migrations leave (event_queue only on the database bus) with its columns.
var shape = map[string][]string{
	VersionsTable: {"version", "description", "installed_on", "success", "checksum", "execution_time"},
	"movies":      {"id", "external_metadata_id", "title", "release_year", "director", "poster_path"},
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

// Shape is the original's last schema on e: every table with its columns (nil for a search
// table, which is dropped whatever its columns).
func (e Engine) Shape() map[string][]string {
	s := maps.Clone(shape)
	for _, t := range e.Search {
		s[t] = nil
	}
	return s
}

// Inspector reads a database's schema and rows, in a transaction or on a handle.
type Inspector interface {
	// Tables lists the schema's ordinary tables.
	Tables(ctx context.Context) ([]string, error)
	// Columns lists a table's columns.
	Columns(ctx context.Context, table string) ([]string, error)
	// Values counts the rows of table that hold a value in column, or all its rows when
	// column is "".
	Values(ctx context.Context, table, column string) (int64, error)
}

// ExtraColumn is a column the original's last schema does not have, with how many rows hold a
// value in it.
type ExtraColumn struct {
	Table, Column string
	Values        int64
}

// Diff is what a database has beyond the original's last schema.
type Diff struct {
	Tables  []string      // tables it does not have (renamed legacy_<name> and kept as they are)
	Columns []ExtraColumn // columns of its tables it does not have
}

// oursTable is our migrations' version table, which a failed start of a build without
// adoption leaves beside the original's (the caller checks it).
const oursTable = "schema_migrations"

// CompareShape compares the database's tables and columns with e's Shape (event_queue expected
// when queue): what is missing refuses the adoption, naming it (the conversion reads it); what
// is extra is returned, to be kept or dropped and said (Report, LogShape).
func (e Engine) CompareShape(ctx context.Context, db Inspector, queue bool) (Diff, error) {
	var diff Diff
	tables, err := db.Tables(ctx)
	if err != nil {
		return diff, fmt.Errorf("read schema: %w", err)
	}
	dropped := e.Dropped()
	want := e.Shape()
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		cols := want[name]
		has := slices.Contains(tables, name)
		if !has && !slices.Contains(dropped, name) && (name != "event_queue" || queue) {
			missing = append(missing, "table "+name)
			continue
		}
		if !has || cols == nil || slices.Contains(dropped, name) {
			continue
		}
		have, err := db.Columns(ctx, name)
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
			n, err := db.Values(ctx, name, c)
			if err != nil {
				return diff, fmt.Errorf("count %s.%s: %w", name, c, err)
			}
			diff.Columns = append(diff.Columns, ExtraColumn{name, c, n})
		}
	}
	for _, name := range tables {
		if _, ok := want[name]; ok || name == oursTable || e.Shadow(name) {
			continue
		}
		diff.Tables = append(diff.Tables, name)
	}
	slices.Sort(diff.Tables)
	if len(missing) > 0 {
		slices.Sort(missing)
		return diff, fmt.Errorf("not movies-diary's last schema, it lacks %s: adopt a database its last release left; nothing was changed",
			strings.Join(missing, ", "))
	}
	slices.SortFunc(diff.Columns, func(a, b ExtraColumn) int {
		return strings.Compare(a.Table+"."+a.Column, b.Table+"."+b.Column)
	})
	return diff, nil
}

// KeptTable is a legacy table the conversion leaves, with its rows and why it stays.
type KeptTable struct {
	Table  string
	Rows   int64
	Reason string
}

// Outcome is what the conversion kept and dropped beyond what it carried.
type Outcome struct {
	Tables         []KeptTable   // every legacy table left with rows, and why
	KeptColumns    []ExtraColumn // columns the original's last schema does not have, kept in a legacy table
	DroppedColumns []ExtraColumn // such columns dropped (their values are in the backup only)
}

// Report says, inside the conversion's transaction and after it carried the rows, which
// legacy tables stay with rows and what became of every extra column of diff: kept in its
// legacy table or dropped. partial are the legacy tables kept because some of their rows
// could not be carried.
func Report(ctx context.Context, db Inspector, diff Diff, partial []string) (Outcome, error) {
	var out Outcome
	tables, err := db.Tables(ctx)
	if err != nil {
		return out, err
	}
	slices.Sort(tables)
	for _, n := range tables {
		orig, ok := strings.CutPrefix(n, "legacy_")
		if !ok || orig == VersionsTable || slices.Contains(CarriedLater, orig) {
			continue // ours; the migration record; tables carried after the first version
		}
		rows, err := db.Values(ctx, n, "")
		if err != nil {
			return out, fmt.Errorf("count %s: %w", n, err)
		}
		if rows == 0 {
			continue
		}
		reason := "holds data this version has no place for"
		switch {
		case slices.Contains(diff.Tables, orig):
			reason = "not a table of movies-diary's last schema: kept as it was, nothing reads it"
		case slices.Contains(partial, n):
			reason = "some of its rows could not be carried"
		}
		out.Tables = append(out.Tables, KeptTable{n, rows, reason})
	}
	for _, c := range diff.Columns {
		table := "legacy_" + c.Table
		if c.Table == "event_queue" {
			table = c.Table
		}
		kept := false
		if slices.Contains(tables, table) && !slices.Contains(CarriedLater, c.Table) {
			cols, err := db.Columns(ctx, table)
			if err != nil {
				return out, fmt.Errorf("read columns of %s: %w", table, err)
			}
			kept = slices.Contains(cols, c.Column)
		}
		if kept {
			out.KeptColumns = append(out.KeptColumns, ExtraColumn{table, c.Column, c.Values})
		} else {
			out.DroppedColumns = append(out.DroppedColumns, c)
		}
	}
	return out, nil
}

// LogShape writes what the conversion kept and dropped beyond what it carried: a warning for
// every kept legacy table with rows, every unknown column kept in one, and every unknown column
// dropped (its values are in the backup only).
func LogShape(log *slog.Logger, out Outcome, backup string) {
	for _, k := range out.Tables {
		log.Warn("kept original table", "table", k.Table, "rows", k.Rows, "reason", k.Reason)
	}
	for _, c := range out.KeptColumns {
		log.Warn("kept column not in movies-diary's last schema", "table", c.Table, "column", c.Column, "values", c.Values)
	}
	for _, c := range out.DroppedColumns {
		log.Warn("dropped column not in movies-diary's last schema: its values are only in the backup", "table", c.Table,
			"column", c.Column, "values", c.Values, "backup", backup)
	}
}
