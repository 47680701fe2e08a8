// Package legacy describes the database of the original movies-diary (Rust, sqlx) that the SQL
// stores adopt: the migrations of its last schema on each engine, its tables and columns, which
// of them adoption drops or keeps, and the comparison both engines make with it before they
// change anything. The conversion itself is engine-specific (sqlite/adopt.go,
// postgres/adopt.go); the fates of its pending events are domain.LegacyEventFate.
package legacy

import (
	"fmt"
	"slices"
	"strings"
)

// VersionsTable is where the original records its migrations.
const VersionsTable = "_sqlx_migrations"

// InstanceActor is the original's service account (its migration 0022): the instance actor,
// which we serve without a users row; its key is carried.
const InstanceActor = "00000000-0000-4000-8000-000000000000"

// QueueVersion is the original's queue migration (event_queue), from its queue crate, which
// shares VersionsTable with the main one. Only the database bus runs it: a deployment on NATS
// never has it, nor the table.
const QueueVersion = 100

// Engine is what differs between the original's SQLite and PostgreSQL databases.
type Engine struct {
	// Main are the versions of its main crate's migrations.
	Main []int64
	// Search are its derived search tables, dropped (ours are rebuilt from the carried rows).
	Search []string
	// Shadow reports whether a table belongs to one of Search (SQLite's FTS5 shadow tables).
	Shadow func(name string) bool
}

// SQLite is the original on SQLite: migrations 1–29, FTS5 search tables.
var SQLite = Engine{
	Main:   versionRange(1, 29),
	Search: []string{"movies_fts", "people_fts"},
	Shadow: func(name string) bool {
		return strings.HasPrefix(name, "movies_fts_") || strings.HasPrefix(name, "people_fts_")
	},
}

// PostgreSQL is the original on PostgreSQL: migrations 1, 2 and 9–29 (its 3–8 changed only
// SQLite's older schema), tsvector search tables.
var PostgreSQL = Engine{
	Main:   append([]int64{1, 2}, versionRange(9, 29)...),
	Search: []string{"movies_search", "people_search"},
	Shadow: func(string) bool { return false },
}

func versionRange(from, to int64) []int64 {
	var v []int64
	for i := from; i <= to; i++ {
		v = append(v, i)
	}
	return v
}

// Versions are the migrations of the original's last schema: Main, then QueueVersion when
// queue is true (a deployment on the database bus).
func (e Engine) Versions(queue bool) []int64 {
	v := slices.Clone(e.Main)
	if queue {
		v = append(v, QueueVersion)
	}
	return v
}

// Dropped are the original's tables dropped without being carried: the search tables,
// refresh sessions (stored in plain text and keyed differently; everyone signs in again) and
// import sessions (scratch state that expires within hours).
func (e Engine) Dropped() []string {
	return append(slices.Clone(e.Search), "refresh_sessions", "import_sessions")
}

// Kept are original tables kept as legacy_<name> whatever was carried from them: they hold
// data our schema at the adoption's version has no place for (follow activity ids and
// rejected follows, remote actors' avatars and collections, announces, remote watchlists and
// goals; webhook tokens, watch events and import profiles until the migrations that carry them)
// and its migration record.
var Kept = []string{"ap_following", "ap_followers", "ap_remote_actors", "ap_announces", "ap_remote_watchlist_entries",
	"remote_goals", "webhook_tokens", "watch_events", "import_profiles", VersionsTable}

// CarriedLater are the legacy tables carried after the adoption's first version (by migrations
// 0185–0187 on SQLite, by later steps of the conversion on PostgreSQL) and then dropped: a
// column of theirs that the carry does not name is dropped with them.
var CarriedLater = []string{"webhook_tokens", "watch_events", "import_profiles"}

// Recorded is one row of VersionsTable.
type Recorded struct {
	Version int64
	Success bool
}

// CheckVersions accepts exactly the original's last schema, in either shape: with its queue (a
// deployment on the database bus) or without (one on NATS); queueTable says whether the
// database has event_queue. It reports which.
func (e Engine) CheckVersions(recorded []Recorded, queueTable bool) (queue bool, err error) {
	var got []int64
	for _, r := range recorded {
		if !r.Success {
			return false, fmt.Errorf("movies-diary migration %d is recorded as failed: repair the database with movies-diary first", r.Version)
		}
		got = append(got, r.Version)
	}
	slices.Sort(got)
	queue = slices.Contains(got, QueueVersion)
	if want := e.Versions(queue); !slices.Equal(got, want) {
		return false, fmt.Errorf("movies-diary schema versions %v: adoption needs exactly its last schema %v, or %v on a deployment that ran on NATS (start the last movies-diary release once to bring it there)",
			got, e.Versions(true), e.Versions(false))
	}
	if queueTable != queue {
		return false, fmt.Errorf("movies-diary schema: version %d recorded %v but table event_queue present %v: the original creates both or neither; nothing was changed",
			QueueVersion, queue, queueTable)
	}
	return queue, nil
}
