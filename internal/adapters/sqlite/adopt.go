package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	sqlite3 "github.com/mattn/go-sqlite3"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/adapters/sqlstore/legacy"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/federation"
	"moviesdiary/migrations"
)

// Adopting a database made by the original movies-diary (Rust, sqlx). Its schema is recorded in
// _sqlx_migrations, not schema_migrations, and its tables share names with ours but not shapes,
// so golang-migrate alone fails at 0001 ("table users already exists"). adoptLegacy converts such
// a database, once, before golang-migrate runs:
//
//  1. it checks the original is at its last schema (sqlx versions 1–29, all successful, and 100
//     with event_queue on a deployment that ran on the database bus; on NATS there is neither),
//     and that its tables and columns are that schema's (legacy.Engine.CompareShape: what is missing refuses,
//     what is extra is kept or dropped, each said in the log);
//  2. it writes a backup copy beside the file (VACUUM INTO) and verifies it (integrity check,
//     the same row count in every table), refusing to go on otherwise;
//  3. in one transaction it renames every original table to legacy_<name>, builds our schema
//     by running our own embedded migrations up to adoptVersion (0100 keeps the original's
//     event_queue, whose shape it is, and 0101 then backfills a random event id into every row
//     and gives rows stranded in 'processing' a claim old enough to be taken over at once),
//     carrying the rows over as soon as the tables they go to exist (most into the schema at
//     adoptBase, so the migrations from there to adoptVersion see them as on any database they
//     upgrade), gives each open row of the original's outbox its fate (adopt_events.go:
//     delivered, settled as done saying why, or dead-lettered), drops the legacy tables it
//     carried completely, keeps the rest (data we do not
//     represent at adoptVersion) as plain legacy_* copies, and records adoptVersion in
//     schema_migrations.
//
// After the commit golang-migrate applies every migration above adoptVersion as on any other
// database, so later migrations never need to know about adoption. The legacy_* tables exist
// only on adopted databases; a migration that takes rows from one (0185 legacy_webhook_tokens,
// 0186 legacy_watch_events, 0187 legacy_import_profiles, 0300 legacy_adopted_history, the list
// of carried rows the worker's retention counts from the adoption) creates it first with CREATE TABLE IF
// NOT EXISTS and the columns it reads, so it also runs where there is none, and drops it when
// done. adoptVersion therefore stays where it is: raising it would run every migration up to
// the new version inside the adoption (each one then has to cope with carried rows), and would
// not reach databases an earlier build already adopted, whose legacy tables the migrations
// find all the same. What SQL cannot compute is finished in Go after the migrations
// (rekeyAdoptedWatches). What is carried and what is kept is listed in the README ("Upgrading
// from movies-diary").

// adoptVersion is the schema an adopted database is brought to: our migrations up to it run
// inside the adoption transaction, the ones above it afterwards through golang-migrate. The
// carry statements below write the tables as they are at this version.
const adoptVersion = 142

// carry is one step of the conversion: insert runs against the renamed original tables; the
// legacy table from is dropped afterwards when the step carried as many rows as expect counts,
// and kept (with a warning) when it carried fewer.
//
// A step runs as soon as the migration it needs is applied, before the next one: the data
// migrations between adoptBase and adoptVersion then see the carried rows, as they see the rows
// of any database they upgrade.
type carry struct {
	name   string
	needs  uint64 // the migration whose tables the step writes (adoptBase unless later)
	from   string // legacy table (original name) the step empties; "" when it only contributes
	insert string
	expect string // counts the rows of from that insert should have carried
}

// adoptBase is the schema every later migration builds on (the preamble's "above 0105"): most
// steps carry into it.
const adoptBase = 105

// Time conversions in SQL: the original writes "YYYY-MM-DD HH:MM:SS" (UTC) and, for users,
// RFC 3339 with an offset; we store RFC 3339 UTC with milliseconds, or Unix ms.
func ts(col string) string { return "strftime('%Y-%m-%dT%H:%M:%fZ', " + col + ")" }

func tsOrNow(col string) string {
	return "COALESCE(" + ts(col) + ", strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
}

func msOrNow(col string) string {
	return "COALESCE(CAST(ROUND((julianday(" + col + ") - 2440587.5) * 86400000) AS INTEGER), " +
		"CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))"
}

// localUser joins users as alias on url when url is a local actor ({base}/users/{id}): the
// original names local users by actor URL in its follow and block tables.
func localUser(alias, url string) string {
	return "LEFT JOIN users " + alias + " ON " + alias + ".id = substr(" + url + ", -36) AND " + url +
		" LIKE '%/users/' || " + alias + ".id"
}

// carries are the conversion steps, in dependency order.
var carries = []carry{
	{name: "users", from: "users",
		insert: `INSERT INTO users (id, username, email, password_hash, is_admin, display_name, bio, created_at)
		SELECT id, username, email, password_hash, role = 'admin', display_name, bio, ` + ts("created_at") + `
		FROM legacy_users WHERE id <> '` + legacy.InstanceActor + `'`,
		expect: `SELECT count(*) FROM legacy_users WHERE id <> '` + legacy.InstanceActor + `'`},
	{name: "settings", from: "user_settings",
		insert: `INSERT INTO user_settings (user_id, federate_reviews, federate_watchlist, federate_goals)
		SELECT user_id, federate_reviews <> 0, federate_watchlist <> 0, federate_goals <> 0 FROM legacy_user_settings
		WHERE user_id IN (SELECT id FROM users)`,
		expect: `SELECT count(*) FROM legacy_user_settings`},
	{name: "movies", from: "movies",
		insert: `INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path, created_at,
			genres, runtime_minutes, original_language, overview, collection_name)
		SELECT m.id, m.external_metadata_id, m.title, m.release_year, m.director, m.poster_path,
			COALESCE(r.first, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
			(SELECT json_group_array(name) FROM (SELECT name FROM legacy_movie_genres WHERE movie_id = m.id ORDER BY rowid)),
			p.runtime_minutes, p.original_language, p.overview, p.collection_name
		FROM legacy_movies m
		LEFT JOIN (SELECT movie_id, min(` + ts("created_at") + `) AS first FROM legacy_reviews GROUP BY movie_id) r ON r.movie_id = m.id
		LEFT JOIN legacy_movie_profiles p ON p.movie_id = m.id`,
		expect: `SELECT count(*) FROM legacy_movies`},
	{name: "genres", from: "movie_genres", insert: ``,
		expect: `SELECT count(*) FROM legacy_movie_genres WHERE movie_id NOT IN (SELECT id FROM movies)`},
	{name: "people", from: "",
		insert: `INSERT INTO people (id, external_id, name, known_for_department, profile_path, biography, birthday,
			deathday, place_of_birth, homepage, imdb_id, enriched_at)
		SELECT id, external_id, name, known_for_department, profile_path, biography, birthday, deathday, place_of_birth,
			homepage, imdb_id, ` + ts("enriched_at") + ` FROM legacy_persons`},
	{name: "cast", from: "movie_cast",
		insert: `INSERT OR IGNORE INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
		SELECT c.movie_id, p.id, 'cast', c.character, NULL, c.billing_order FROM legacy_movie_cast c
		JOIN legacy_persons p ON p.tmdb_person_id = c.tmdb_person_id WHERE c.movie_id IN (SELECT id FROM movies)`,
		expect: `SELECT count(*) FROM legacy_movie_cast`},
	{name: "crew", from: "movie_crew",
		insert: `INSERT OR IGNORE INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
		SELECT c.movie_id, p.id, 'crew', c.job, c.department, NULL FROM legacy_movie_crew c
		JOIN legacy_persons p ON p.tmdb_person_id = c.tmdb_person_id WHERE c.movie_id IN (SELECT id FROM movies)`,
		expect: `SELECT count(*) FROM legacy_movie_crew`},
	{name: "movie profiles", from: "movie_profiles",
		// Our profile document is the one the original's API returned, built here from its
		// tables; enriched_at stays, so the staleness job refreshes movies as it would have.
		// (Subquery results lose their JSON subtype: json() restores it.)
		insert: `INSERT INTO movie_profiles (movie_id, profile, enriched_at)
		SELECT p.movie_id, json_object('tmdb_id', p.tmdb_id, 'imdb_id', nullif(p.imdb_id, ''),
			'overview', nullif(p.overview, ''), 'tagline', nullif(p.tagline, ''), 'runtime_minutes', p.runtime_minutes,
			'budget_usd', nullif(p.budget_usd, 0), 'revenue_usd', nullif(p.revenue_usd, 0),
			'vote_average', iif(p.vote_count > 0, p.vote_average, NULL), 'vote_count', nullif(p.vote_count, 0),
			'original_language', nullif(p.original_language, ''), 'collection_name', nullif(p.collection_name, ''),
			'genres', json((SELECT json_group_array(json_object('tmdb_id', tmdb_id, 'name', name))
				FROM (SELECT tmdb_id, name FROM legacy_movie_genres WHERE movie_id = p.movie_id ORDER BY rowid))),
			'keywords', json((SELECT json_group_array(json_object('tmdb_id', tmdb_id, 'name', name))
				FROM (SELECT tmdb_id, name FROM legacy_movie_keywords WHERE movie_id = p.movie_id ORDER BY rowid))),
			'cast', json((SELECT json_group_array(json_object('person_id', id, 'tmdb_person_id', tmdb_person_id, 'name', name,
					'character', character, 'billing_order', billing_order, 'profile_path', profile_path))
				FROM (SELECT pe.id, c.tmdb_person_id, c.name, c.character, c.billing_order, c.profile_path
					FROM legacy_movie_cast c JOIN legacy_persons pe ON pe.tmdb_person_id = c.tmdb_person_id
					WHERE c.movie_id = p.movie_id ORDER BY c.billing_order, c.rowid))),
			'crew', json((SELECT json_group_array(json_object('person_id', id, 'tmdb_person_id', tmdb_person_id, 'name', name,
					'job', job, 'department', department, 'profile_path', profile_path))
				FROM (SELECT pe.id, c.tmdb_person_id, c.name, c.job, c.department, c.profile_path
					FROM legacy_movie_crew c JOIN legacy_persons pe ON pe.tmdb_person_id = c.tmdb_person_id
					WHERE c.movie_id = p.movie_id ORDER BY c.rowid))),
			'enriched_at', strftime('%Y-%m-%dT%H:%M:%SZ', p.enriched_at)),
			` + ts("p.enriched_at") + `
		FROM legacy_movie_profiles p WHERE p.movie_id IN (SELECT id FROM movies) AND ` + ts("p.enriched_at") + ` IS NOT NULL`,
		expect: `SELECT count(*) FROM legacy_movie_profiles`},
	{name: "keywords", from: "movie_keywords", insert: ``,
		expect: `SELECT count(*) FROM legacy_movie_keywords WHERE movie_id NOT IN (SELECT movie_id FROM movie_profiles)`},
	{name: "persons", from: "persons", insert: ``,
		expect: `SELECT count(*) FROM legacy_persons WHERE id NOT IN (SELECT id FROM people)`},
	{name: "reviews", from: "reviews",
		insert: `INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at,
			updated_at, remote_actor_url, ap_id)
		SELECT iif(remote_actor_url IS NOT NULL AND ap_id IS NOT NULL, adopt_remote_review_id(ap_id), id),
			user_id, movie_id, rating, comment, watch_medium, ` + ts("watched_at") + `, ` + ts("created_at") + `,
			` + ts("created_at") + `, remote_actor_url, ap_id FROM legacy_reviews
		WHERE movie_id IN (SELECT id FROM movies) AND (remote_actor_url IS NOT NULL OR user_id IN (SELECT id FROM users))`,
		expect: `SELECT count(*) FROM legacy_reviews`},
	{name: "watchlist", from: "watchlist_entries",
		insert: `INSERT OR IGNORE INTO watchlist (user_id, movie_id, added_at)
		SELECT user_id, movie_id, ` + ts("added_at") + ` FROM legacy_watchlist_entries
		WHERE user_id IN (SELECT id FROM users) AND movie_id IN (SELECT id FROM movies)`,
		expect: `SELECT count(*) FROM legacy_watchlist_entries`},
	{name: "follows", from: "",
		insert: `INSERT OR IGNORE INTO follows (follower_kind, follower_id, target_kind, target_id, status, created_at)
		SELECT 'local', f.local_user_id, iif(t.id IS NULL, 'remote', 'local'), COALESCE(t.id, f.remote_actor_url), f.status,
			` + tsOrNow("f.created_at") + ` FROM legacy_ap_following f ` + localUser("t", "f.remote_actor_url") + `
		WHERE f.status IN ('pending', 'accepted') AND f.local_user_id IN (SELECT id FROM users)`},
	{name: "followers", from: "",
		insert: `INSERT OR IGNORE INTO follows (follower_kind, follower_id, target_kind, target_id, status, created_at)
		SELECT iif(t.id IS NULL, 'remote', 'local'), COALESCE(t.id, f.remote_actor_url), 'local', f.local_user_id, f.status,
			` + tsOrNow("f.created_at") + ` FROM legacy_ap_followers f ` + localUser("t", "f.remote_actor_url") + `
		WHERE f.status IN ('pending', 'accepted') AND f.local_user_id IN (SELECT id FROM users)`},
	{name: "blocks", from: "blocked_actors",
		insert: `INSERT OR IGNORE INTO blocks (blocker_id, target_kind, target_id, created_at)
		SELECT b.local_user_id, iif(t.id IS NULL, 'remote', 'local'), COALESCE(t.id, b.remote_actor_url),
			` + tsOrNow("b.blocked_at") + ` FROM legacy_blocked_actors b ` + localUser("t", "b.remote_actor_url") + `
		WHERE b.local_user_id IN (SELECT id FROM users)`,
		expect: `SELECT count(*) FROM legacy_blocked_actors`},
	{name: "domain blocks", from: "blocked_domains",
		insert: `INSERT OR IGNORE INTO domain_blocks (domain, reason, blocked_at)
		SELECT lower(domain), reason, ` + tsOrNow("blocked_at") + ` FROM legacy_blocked_domains`,
		expect: `SELECT count(*) FROM legacy_blocked_domains`},
	{name: "remote actors", from: "",
		// The original cached no public keys: key_id and public_key stay empty and fetched_at 0,
		// so the first use fetches the actor document again.
		insert: `INSERT OR IGNORE INTO remote_actors (url, inbox, shared_inbox, outbox, handle, display_name, key_id,
			public_key, fetched_at)
		SELECT url, inbox_url, shared_inbox_url, outbox_url, handle, display_name, '', '', 0 FROM legacy_ap_remote_actors`},
	{name: "actor keys", from: "ap_local_actors",
		insert: `INSERT INTO actor_keys (owner_id, private_key_pem, public_key_pem, created_at)
		SELECT user_id, private_key, public_key, ` + msOrNow("created_at") + ` FROM legacy_ap_local_actors
		WHERE user_id IN (SELECT id FROM users) OR user_id = '` + legacy.InstanceActor + `'`,
		expect: `SELECT count(*) FROM legacy_ap_local_actors`},
	{name: "inbound activities", from: "ap_activities",
		insert: `INSERT OR IGNORE INTO inbox_activities (activity_id, actor_url, received_at)
		SELECT id, '', ` + msOrNow("processed_at") + ` FROM legacy_ap_activities`,
		expect: `SELECT count(*) FROM legacy_ap_activities`},
	{name: "wrap-ups", from: "wrap_up_records",
		// We allow one live wrap-up per user and range; the original did not. The best of a
		// group (Ready first, then the newest) stays live, the others become Failed, saying why.
		insert: `INSERT INTO wrapups (id, user_id, status, start_date, end_date, created_at, completed_at, error_message, report)
		SELECT id, user_id,
			CASE WHEN live AND rn > 1 THEN 'Failed'
				WHEN lower(status) = 'pending' THEN 'Pending' WHEN lower(status) = 'generating' THEN 'Generating'
				WHEN lower(status) = 'ready' THEN 'Ready' ELSE 'Failed' END,
			start_date, end_date, ` + tsOrNow("created_at") + `, ` + ts("completed_at") + `,
			iif(live AND rn > 1, 'superseded when adopted from movies-diary: another live wrap-up covers the same range',
				error_message), report_json
		FROM (SELECT w.*, lower(w.status) IN ('pending', 'generating', 'ready') AS live,
				row_number() OVER (PARTITION BY ifnull(w.user_id, ''), w.start_date, w.end_date,
					lower(w.status) IN ('pending', 'generating', 'ready')
					ORDER BY lower(w.status) = 'ready' DESC, w.created_at DESC, w.id) AS rn
			FROM legacy_wrap_up_records w WHERE w.user_id IS NULL OR w.user_id IN (SELECT id FROM users))`,
		expect: `SELECT count(*) FROM legacy_wrap_up_records`},
	{name: "profiles", needs: 125, from: "",
		insert: `UPDATE users SET avatar_key = u.avatar_path, banner_key = u.banner_path,
			also_known_as = nullif(u.also_known_as, ''),
			profile_fields = (SELECT json_group_array(json_object('name', f.name, 'value', f.value))
				FROM (SELECT name, value FROM legacy_user_profile_fields WHERE user_id = u.id ORDER BY position, id) f)
		FROM legacy_users u WHERE u.id = users.id`},
	{name: "profile fields", needs: 125, from: "user_profile_fields", insert: ``,
		expect: `SELECT count(*) FROM legacy_user_profile_fields WHERE user_id NOT IN (SELECT id FROM users)`},
	{name: "goals", needs: 126, from: "goals",
		insert: `INSERT INTO goals (id, user_id, year, target_count, created_at, updated_at)
		SELECT id, user_id, year, target_count, ` + tsOrNow("created_at") + `, ` + tsOrNow("created_at") + `
		FROM legacy_goals WHERE user_id IN (SELECT id FROM users) AND year BETWEEN 2020 AND 9999 AND target_count >= 1`,
		expect: `SELECT count(*) FROM legacy_goals`},
}

// adoptLegacy converts a database made by the original movies-diary, if path is one; it does
// nothing on any other database. The caller holds the migration lock.
func (s *Store) adoptLegacy(ctx context.Context, log *slog.Logger) error {
	// Foreign keys off: renaming and dropping the original's tables must not cascade into the
	// ones kept (the carried rows are checked with foreign_key_check before the commit). A
	// large page cache keeps the one big transaction's pages in memory instead of spilling.
	db, err := sql.Open(adoptDriverName, strings.Replace(dsn(s.path, "immediate"), "_foreign_keys=on", "_foreign_keys=off", 1)+
		"&_cache_size=-131072")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	original, err := tableExists(ctx, db, legacy.VersionsTable)
	if err != nil || !original {
		return err
	}
	queue, err := checkLegacyVersions(ctx, db)
	if err != nil {
		return err
	}
	shape, err := checkLegacyShape(ctx, db, queue)
	if err != nil {
		return err
	}
	if !queue {
		log.Info("movies-diary ran on NATS (no event_queue): no outbox rows to carry; its undelivered events are in its JetStream stream, which the worker takes under its consumer's name (keep NATS_CONSUMER_NAME as it was, by default worker)",
			"path", s.path)
	}
	if ours, err := tableExists(ctx, db, migrationsTable); err != nil {
		return err
	} else if ours {
		// Only what a failed run of golang-migrate on the original leaves: its own table,
		// dirty at our first version.
		var v int64
		var dirty bool
		if err := db.QueryRowContext(ctx, "SELECT version, dirty FROM "+migrationsTable).Scan(&v, &dirty); err != nil &&
			!errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read %s: %w", migrationsTable, err)
		}
		if v > 1 {
			return fmt.Errorf("the database has both %s and %s at version %d: it is neither the original's nor ours",
				legacy.VersionsTable, migrationsTable, v)
		}
	}

	if err := checkCaseCollisions(ctx, db); err != nil {
		return err
	}
	start := time.Now()
	log.Warn("database made by movies-diary: adopting it (once)", "path", s.path)
	// The one connection (MaxOpenConns 1) sees data_version change when any other connection
	// commits: with the row counts it tells that nothing wrote between the backup and the
	// conversion.
	var version int64
	if err := db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		return fmt.Errorf("read data version: %w", err)
	}
	counts, err := tableCounts(ctx, db)
	if err != nil {
		return err
	}
	counts["pragma data_version"] = version
	backup, err := writeBackup(ctx, db, s.path, counts)
	if err != nil {
		return fmt.Errorf("no verified backup, not adopting (the database is unchanged): %w", err)
	}
	log.Info("backup written and verified", "backup", backup, "tables", len(counts)-1,
		"duration", time.Since(start).Round(time.Millisecond))

	if adoptAfterBackup != nil {
		adoptAfterBackup(s.path)
	}
	report, err := convertLegacy(ctx, db, counts, shape, log)
	if err != nil {
		return fmt.Errorf("nothing was changed; the backup %s is a copy of the original: %w", backup, err)
	}
	legacy.LogShape(log, report.outcome, backup)
	for _, e := range report.settled {
		log.Warn("adopted outbox rows settled, not delivered", "event_type", e.eventType, "status", e.status, "rows", e.rows,
			"reason", e.reason)
	}
	log.Warn("adopted movies-diary database", "schema_version", adoptVersion, "backup", backup,
		"carried", report.carried, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// adoptDriverName is the driver of the adoption's connection: SQLite with
// adopt_remote_review_id(ap_id), the id we store a remote review under (the original's were
// random, so an Update from its author would not find the row).
const adoptDriverName = "sqlite3-moviesdiary-adopt"

func init() {
	sql.Register(adoptDriverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return c.RegisterFunc("adopt_remote_review_id", func(apID string) string {
			return federation.RemoteReviewID(apID).String()
		}, true)
	}})
}

// adoptAfterBackup, when set (by a test), runs between the backup and the conversion.
var adoptAfterBackup func(path string)

// tableExists reports whether db has a table name.
func tableExists(ctx context.Context, db *sql.DB, name string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read schema: %w", err)
	}
	return n > 0, nil
}

// checkLegacyVersions accepts exactly the original's last schema, in either shape: with its
// queue (a deployment on the database bus) or without (one on NATS). It reports which.
func checkLegacyVersions(ctx context.Context, db *sql.DB) (queue bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT version, success FROM `+legacy.VersionsTable+` ORDER BY version`)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", legacy.VersionsTable, err)
	}
	defer rows.Close()
	var got []legacy.Recorded
	for rows.Next() {
		var r legacy.Recorded
		if err := rows.Scan(&r.Version, &r.Success); err != nil {
			return false, err
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	hasTable, err := tableExists(ctx, db, "event_queue")
	if err != nil {
		return false, err
	}
	return legacy.SQLite.CheckVersions(got, hasTable)
}

// checkCaseCollisions refuses accounts that differ only in letter case: the original's user
// names and e-mails are case-sensitive, ours are not (COLLATE NOCASE, ASCII like lower()), so
// they could not both be carried. The operator renames one in movies-diary first.
func checkCaseCollisions(ctx context.Context, db *sql.DB) error {
	var clashes []string
	for _, col := range []string{"username", "email"} {
		got, err := legacy.Strings(ctx, db, `SELECT group_concat(`+col+`, ' / ') FROM users
			WHERE id <> ? GROUP BY lower(`+col+`) HAVING count(*) > 1`, legacy.InstanceActor)
		if err != nil {
			return fmt.Errorf("read users: %w", err)
		}
		for _, c := range got {
			clashes = append(clashes, col+" "+c)
		}
	}
	if len(clashes) > 0 {
		return fmt.Errorf("accounts differ only in letter case, which moviesdiary treats as the same (%s): rename one of each in movies-diary first; nothing was changed",
			strings.Join(clashes, "; "))
	}
	return nil
}

// tableCounts counts the rows of every ordinary table (not the FTS shadow tables).
func tableCounts(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE '%_fts_%'`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(names))
	for _, n := range names {
		var c int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+n+`"`).Scan(&c); err != nil {
			return nil, fmt.Errorf("count %s: %w", n, err)
		}
		counts[n] = c
	}
	return counts, nil
}

// writeBackup copies the database (with whatever its WAL holds) to a new file beside it and
// verifies the copy: integrity check ok and the same row count in every table.
func writeBackup(ctx context.Context, db *sql.DB, path string, counts map[string]int64) (string, error) {
	backup := path + ".movies-diary-backup"
	if _, err := os.Stat(backup); err == nil {
		backup = path + ".movies-diary-backup-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, backup); err != nil {
		os.Remove(backup)
		return "", fmt.Errorf("write backup %s: %w", backup, err)
	}
	if err := verifyBackup(ctx, backup, counts); err != nil {
		os.Remove(backup)
		return "", fmt.Errorf("verify backup %s: %w", backup, err)
	}
	return backup, nil
}

func verifyBackup(ctx context.Context, backup string, counts map[string]int64) error {
	b, err := sql.Open("sqlite3", "file:"+backup+"?mode=ro")
	if err != nil {
		return err
	}
	defer b.Close()
	var check string
	if err := b.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return err
	}
	if check != "ok" {
		return fmt.Errorf("integrity check: %s", check)
	}
	got, err := tableCounts(ctx, b)
	if err != nil {
		return err
	}
	got["pragma data_version"] = counts["pragma data_version"] // a property of the connection, not the file
	if !mapsEqual(got, counts) {
		return fmt.Errorf("row counts differ from the original: %v, want %v", got, counts)
	}
	return nil
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// adoptReport says what a conversion did.
type adoptReport struct {
	carried map[string]int64 // rows inserted per step
	kept    []string         // legacy tables kept because some of their rows were not carried
	outcome legacy.Outcome   // what was kept and dropped beyond what was carried

	settled []settledEvents // the original's open outbox rows settled instead of delivered
}

// convertLegacy does the conversion in one transaction; counts are the row counts the backup
// was verified against, which must still hold (nothing wrote meanwhile).
func convertLegacy(ctx context.Context, db *sql.DB, counts map[string]int64, shape legacy.Diff, log *slog.Logger) (adoptReport, error) {
	rep := adoptReport{carried: map[string]int64{}}
	var version int64
	began := time.Now()
	tx, err := sqlx.NewDb(db, driverName).BeginTxx(ctx, nil)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()

	now, err := tableCounts(ctx, tx)
	if err != nil {
		return rep, err
	}
	if err := tx.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		return rep, fmt.Errorf("read data version: %w", err)
	}
	now["pragma data_version"] = version
	if !mapsEqual(now, counts) {
		return rep, errors.New("the database changed while it was backed up: stop movies-diary and start again")
	}
	if err := renameLegacy(ctx, tx); err != nil {
		return rep, err
	}
	files, err := migrations.UpTo(migrations.FS, adoptVersion)
	if err != nil {
		return rep, err
	}
	steps := carries
	carryUpTo := func(v uint64) error {
		for len(steps) > 0 && steps[0].need() <= v {
			if err := runCarry(ctx, tx, steps[0], &rep, log); err != nil {
				return err
			}
			steps = steps[1:]
		}
		return nil
	}
	applied := uint64(0)
	for _, f := range files {
		if err := carryUpTo(applied); err != nil {
			return rep, err
		}
		body, err := fs.ReadFile(migrations.FS, f.Name)
		if err != nil {
			return rep, err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return rep, fmt.Errorf("migration %s: %w", f.Name, err)
		}
		applied = f.Version
	}
	if err := carryUpTo(applied); err != nil {
		return rep, err
	}
	if len(steps) > 0 {
		return rep, fmt.Errorf("carry %s: needs migration %d, not embedded", steps[0].name, steps[0].need())
	}
	log.Debug("adopt: schema built and rows carried", "duration", time.Since(began).Round(time.Millisecond))
	// Drop what was carried completely; keep the rest.
	for _, c := range carries {
		if c.from == "" || slices.Contains(legacy.Kept, c.from) {
			continue
		}
		var want int64
		if err := tx.QueryRowContext(ctx, c.expect).Scan(&want); err != nil {
			return rep, fmt.Errorf("count %s: %w", c.from, err)
		}
		n := rep.carried[c.name]
		if c.insert == "" {
			// A contributing table (its rows went into another table's column): its expect
			// counts the rows that had nowhere to go.
			want, n = 0, want
		}
		if n == want {
			if _, err := tx.ExecContext(ctx, `DROP TABLE "legacy_`+c.from+`"`); err != nil {
				return rep, err
			}
		} else {
			rep.kept = append(rep.kept, "legacy_"+c.from)
		}
	}
	if err := rebuildKept(ctx, tx); err != nil {
		return rep, err
	}
	rep.outcome, err = legacy.Report(ctx, inspector{tx}, shape, rep.kept)
	if err != nil {
		return rep, err
	}
	if err := listAdoptedHistory(ctx, tx, began); err != nil {
		return rep, err
	}
	if rep.settled, err = settleLegacyEvents(ctx, tx); err != nil {
		return rep, err
	}
	// The original's search index is dropped; the worker rebuilds ours from the carried rows.
	if err := outbox.Insert(ctx, tx, time.Now(), domain.SearchReindexRequested{}); err != nil {
		return rep, fmt.Errorf("request a search reindex: %w", err)
	}
	log.Debug("adopt: legacy tables kept", "duration", time.Since(began).Round(time.Millisecond))
	var fk string
	err = tx.QueryRowContext(ctx, `SELECT "table" || ' ' || "parent" FROM pragma_foreign_key_check
		WHERE "table" NOT LIKE 'legacy_%' LIMIT 1`).Scan(&fk)
	if err == nil {
		return rep, fmt.Errorf("carried rows break a foreign key (%s)", fk)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return rep, fmt.Errorf("foreign key check: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+migrationsTable+` (version uint64, dirty bool);
		CREATE UNIQUE INDEX IF NOT EXISTS version_unique ON `+migrationsTable+` (version);
		DELETE FROM `+migrationsTable+`;
		INSERT INTO `+migrationsTable+` (version, dirty) VALUES (?, false)`, adoptVersion); err != nil {
		return rep, fmt.Errorf("record schema version: %w", err)
	}
	log.Debug("adopt: checked", "duration", time.Since(began).Round(time.Millisecond))
	if err := tx.Commit(); err != nil {
		return rep, err
	}
	log.Debug("adopt: committed", "duration", time.Since(began).Round(time.Millisecond))
	return rep, nil
}

// adoptedHistoryTable lists the carried rows the worker's retention jobs count from the
// adoption (migration 0300 marks them adopted_at and drops the list): the inbound activity ids,
// which the federation pruner then keeps for good, and the wrap-ups, whose day to be failed as
// stuck and week to be deleted as failed the reaper counts from the adoption. Without it their
// first run would delete every carried id past the 14-day dedup window and every carried Failed
// wrap-up older than a week (among them those the adoption itself superseded), and fail a
// carried Pending one at once, before the worker delivers the original's request for it.
const adoptedHistoryTable = "legacy_adopted_history"

// listAdoptedHistory writes adoptedHistoryTable, with at as the adoption's time.
func listAdoptedHistory(ctx context.Context, tx *sqlx.Tx, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE `+adoptedHistoryTable+` (tbl TEXT NOT NULL, id TEXT NOT NULL,
		adopted_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("list the carried history: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+adoptedHistoryTable+` (tbl, id, adopted_at)
		SELECT 'inbox_activities', activity_id, ? FROM inbox_activities
		UNION ALL SELECT 'wrapups', id, ? FROM wrapups`, at.UnixMilli(), at.UnixMilli()); err != nil {
		return fmt.Errorf("list the carried history: %w", err)
	}
	return nil
}

// renameLegacy drops the derived and secret tables, renames every other original table (all
// but event_queue, which 0100/0101 convert in place) to legacy_<name>, and drops their
// explicit indexes, whose names ours reuse (primary-key and UNIQUE indexes stay with them).
func renameLegacy(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+migrationsTable); err != nil {
		return err
	}
	for _, t := range legacy.SQLite.Dropped() {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS "`+t+`"`); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	names, err := legacy.Strings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name <> 'event_queue'`)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+n+`"`); err != nil {
			return fmt.Errorf("drop index %s: %w", n, err)
		}
	}
	names, err = legacy.Strings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name <> 'event_queue'`)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE "`+n+`" RENAME TO "legacy_`+n+`"`); err != nil {
			return fmt.Errorf("rename %s: %w", n, err)
		}
	}
	return nil
}

// rebuildKept turns every legacy table still present into a plain copy without constraints:
// the originals' foreign keys name tables that are gone (legacy_users), which would make any
// later write to them fail.
func rebuildKept(ctx context.Context, tx *sqlx.Tx) error {
	names, err := legacy.Strings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'legacy\_%' ESCAPE '\'`)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE "adopt_tmp" AS SELECT * FROM "`+n+`";
			DROP TABLE "`+n+`"; ALTER TABLE "adopt_tmp" RENAME TO "`+n+`"`); err != nil {
			return fmt.Errorf("keep %s: %w", n, err)
		}
	}
	return nil
}

func (c carry) need() uint64 { return max(c.needs, adoptBase) }

// runCarry runs one step, recording how many rows it wrote.
func runCarry(ctx context.Context, tx *sqlx.Tx, c carry, rep *adoptReport, log *slog.Logger) error {
	if c.insert == "" {
		return nil
	}
	began := time.Now()
	res, err := tx.ExecContext(ctx, c.insert)
	if err != nil {
		return fmt.Errorf("carry %s: %w", c.name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	rep.carried[c.name] = n
	log.Debug("adopt: carried", "step", c.name, "rows", n, "duration", time.Since(began).Round(time.Millisecond))
	return nil
}

// watchDedupTable lists the watch events migration 0186 carried from the original with a
// title-based dedup key, which SQL folds only in ASCII.
const watchDedupTable = "legacy_watch_dedup"

// rekeyAdoptedWatches gives the watch events listed in legacy_watch_dedup the dedup key our
// code computes (domain.WatchEvent.DedupKey: Unicode case folding and trimming), then drops
// the list, in one transaction. Migrate runs it after the migrations, under the migration
// lock; when there is no list (every start but the one that applied 0186) it only looks.
func (s *Store) rekeyAdoptedWatches(ctx context.Context, log *slog.Logger) error {
	db, err := sql.Open(driverName, dsn(s.path, "immediate"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if ok, err := tableExists(ctx, db, watchDedupTable); err != nil || !ok {
		return err
	}
	tx, err := sqlx.NewDb(db, driverName).BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var rows []struct {
		ID         string           `db:"id"`
		Title      string           `db:"title"`
		Year       sql.Null[int]    `db:"year"`
		ExternalID sql.Null[string] `db:"external_id"`
		Key        string           `db:"dedup_key"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT e.id, e.title, e.year, e.external_id, e.dedup_key FROM watch_events e
		JOIN `+watchDedupTable+` d ON d.id = e.id`); err != nil {
		return fmt.Errorf("read adopted watch events: %w", err)
	}
	changed := 0
	for _, r := range rows {
		key := domain.WatchEvent{Title: r.Title, Year: sqlrow.Ptr(r.Year), ExternalID: sqlrow.Ptr(r.ExternalID)}.DedupKey()
		if key == r.Key {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE watch_events SET dedup_key = ? WHERE id = ?`, key, r.ID); err != nil {
			return fmt.Errorf("rekey watch event %s: %w", r.ID, err)
		}
		changed++
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE `+watchDedupTable); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if len(rows) > 0 {
		log.Info("adopted watch events keyed for deduplication", "events", len(rows), "rekeyed", changed)
	}
	return nil
}
