package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore/legacy"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/migrations"
	pgmigrations "moviesdiary/migrations/postgres"
)

// Adopting a PostgreSQL database made by the original movies-diary (Rust, sqlx), as the SQLite
// store adopts its SQLite file (sqlite/adopt.go, whose rules this follows). The original records
// its schema in _sqlx_migrations and its tables share names with ours, so golang-migrate alone
// fails at 0001 ("relation users already exists"). adoptLegacy converts such a database, once,
// under the migration lock, before golang-migrate runs:
//
//  1. it checks the original is at its last schema (sqlx versions 1, 2 and 9–29, all
//     successful, and 100 with event_queue on a deployment that ran on the database bus; on
//     NATS there is neither) and that its tables and columns are that schema's
//     (legacy.Engine.CompareShape: what is missing refuses, what is extra is kept or dropped,
//     each said in the log);
//  2. in one transaction, with every original table locked against writers, it copies every
//     original table into the schema movies_diary_backup and verifies each copy (the same rows:
//     count and an order-free hash of the rows' text), refusing to go on otherwise: PostgreSQL
//     has no VACUUM INTO, and a backup in the same transaction exists exactly when the
//     conversion committed;
//  3. in the same transaction it drops the derived tables, renames every other original table
//     (with its indexes and sequences, whose names are per schema) to legacy_<name>, turns the
//     original's event_queue into the one our 0100 creates, in its place (keepOutbox), builds our
//     schema by running our embedded migrations up to pgAdoptVersion, carrying the rows over as
//     soon as the tables they go to exist (most into the schema at adoptBase, so the migrations
//     after it see them as on any database they upgrade), gives each open row of the
//     original's outbox its fate (domain.LegacyEventFate), drops the legacy tables it carried
//     completely, keeps the rest as legacy_* copies, marks the carried history adopted (what
//     migration 0300 does on SQLite), and records pgAdoptVersion in schema_migrations.
//
// After the commit golang-migrate applies the migrations above pgAdoptVersion. Unlike SQLite's,
// PostgreSQL's migrations 0110, 0185–0187 and 0300 do nothing with legacy tables (no
// PostgreSQL database had any when they were written): the conversion runs them itself, as
// steps after those migrations, which is why pgAdoptVersion is 0300 where SQLite's is 0142.

// pgAdoptVersion is the schema an adopted PostgreSQL database is brought to inside the adoption.
const pgAdoptVersion = 300

// adoptBase is the schema most carry steps write (the SQLite adoption's too).
const adoptBase = 105

// backupSchema is where the adoption copies the original's tables.
const backupSchema = "movies_diary_backup"

// Time conversions in SQL (the transaction's time zone is UTC): the original stores TIMESTAMPTZ
// (and, in a few tables, text); we store RFC 3339 UTC with milliseconds, or Unix ms.
func ts(col string) string { return `to_char(` + col + `, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` }

const nowTS = `to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

func tsOrNow(col string) string { return "COALESCE(" + ts(col) + ", " + nowTS + ")" }

func ms(col string) string { return "round(extract(epoch FROM " + col + ") * 1000)::bigint" }

func msOrNow(col string) string { return "COALESCE(" + ms(col) + ", " + ms("now()") + ")" }

// textTS reads a time the original stored as text ("2006-01-02T15:04:05Z" and the like), NULL
// when it is not one (adopt_ts, created in the transaction).
func textTS(col string) string { return "pg_temp.adopt_ts(" + col + ")" }

// localUser joins users as alias on url when url is a local actor ({base}/users/{id}): the
// original names local users by actor URL in its follow and block tables.
func localUser(alias, url string) string {
	return "LEFT JOIN users " + alias + " ON " + alias + ".id = right(" + url + ", 36) AND " + url +
		" LIKE '%/users/' || " + alias + ".id"
}

// carry is one step of the conversion: insert (SQL) or run (Go) writes rows from the renamed
// original tables; the legacy table from is dropped afterwards when the step carried as many
// rows as expect counts, and kept (with a warning) when it carried fewer. It runs once the
// migration needs (adoptBase when 0) is applied, before the next one.
type carry struct {
	name   string
	needs  uint64
	from   string
	insert string
	run    func(ctx context.Context, tx *sqlx.Tx) (int64, error)
	expect string
}

func (c carry) need() uint64 {
	if c.needs == 0 {
		return adoptBase
	}
	return c.needs
}

// carries are the conversion steps, in migration order (the SQLite adoption's, in PostgreSQL's
// spelling, and the steps its migrations 0185–0187 take there).
var carries = []carry{
	{name: "users", from: "users",
		insert: `INSERT INTO users (id, username, email, password_hash, is_admin, display_name, bio, created_at)
		SELECT id, username, email, password_hash, role = 'admin', display_name, bio, ` + ts("created_at") + `
		FROM legacy_users WHERE id <> '` + legacy.InstanceActor + `'`,
		expect: `SELECT count(*) FROM legacy_users WHERE id <> '` + legacy.InstanceActor + `'`},
	{name: "settings", from: "user_settings",
		insert: `INSERT INTO user_settings (user_id, federate_reviews, federate_watchlist, federate_goals)
		SELECT user_id, federate_reviews, federate_watchlist, federate_goals <> 0 FROM legacy_user_settings
		WHERE user_id IN (SELECT id FROM users)`,
		expect: `SELECT count(*) FROM legacy_user_settings`},
	{name: "movies", from: "movies",
		insert: `INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path, created_at,
			genres, runtime_minutes, original_language, overview, collection_name)
		SELECT m.id, m.external_metadata_id, m.title, m.release_year, m.director, m.poster_path, COALESCE(r.first, ` + nowTS + `),
			COALESCE((SELECT json_agg(g.name ORDER BY g.ctid) FROM legacy_movie_genres g WHERE g.movie_id = m.id)::text, '[]'),
			p.runtime_minutes, p.original_language, p.overview, p.collection_name
		FROM legacy_movies m
		LEFT JOIN (SELECT movie_id, min(` + ts("created_at") + `) AS first FROM legacy_reviews GROUP BY movie_id) r ON r.movie_id = m.id
		LEFT JOIN legacy_movie_profiles p ON p.movie_id = m.id`,
		expect: `SELECT count(*) FROM legacy_movies`},
	{name: "genres", from: "movie_genres",
		expect: `SELECT count(*) FROM legacy_movie_genres WHERE movie_id NOT IN (SELECT id FROM movies)`},
	{name: "people",
		insert: `INSERT INTO people (id, external_id, name, known_for_department, profile_path, biography, birthday,
			deathday, place_of_birth, homepage, imdb_id, enriched_at)
		SELECT id, external_id, name, known_for_department, profile_path, biography, birthday, deathday, place_of_birth,
			homepage, imdb_id, ` + ts("enriched_at") + ` FROM legacy_persons`},
	{name: "cast", from: "movie_cast",
		insert: `INSERT INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
		SELECT c.movie_id, p.id, 'cast', c.character, NULL, c.billing_order FROM legacy_movie_cast c
		JOIN legacy_persons p ON p.tmdb_person_id = c.tmdb_person_id WHERE c.movie_id IN (SELECT id FROM movies)
		ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_movie_cast`},
	{name: "crew", from: "movie_crew",
		insert: `INSERT INTO movie_credits (movie_id, person_id, kind, role, department, billing_order)
		SELECT c.movie_id, p.id, 'crew', c.job, c.department, NULL FROM legacy_movie_crew c
		JOIN legacy_persons p ON p.tmdb_person_id = c.tmdb_person_id WHERE c.movie_id IN (SELECT id FROM movies)
		ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_movie_crew`},
	{name: "movie profiles", from: "movie_profiles",
		// Our profile document is the one the original's API returned, built from its tables.
		insert: `INSERT INTO movie_profiles (movie_id, profile, enriched_at)
		SELECT p.movie_id, json_build_object('tmdb_id', p.tmdb_id, 'imdb_id', nullif(p.imdb_id, ''),
			'overview', nullif(p.overview, ''), 'tagline', nullif(p.tagline, ''), 'runtime_minutes', p.runtime_minutes,
			'budget_usd', nullif(p.budget_usd, 0), 'revenue_usd', nullif(p.revenue_usd, 0),
			'vote_average', CASE WHEN p.vote_count > 0 THEN p.vote_average END, 'vote_count', nullif(p.vote_count, 0),
			'original_language', nullif(p.original_language, ''), 'collection_name', nullif(p.collection_name, ''),
			'genres', COALESCE((SELECT json_agg(json_build_object('tmdb_id', g.tmdb_id, 'name', g.name) ORDER BY g.ctid)
				FROM legacy_movie_genres g WHERE g.movie_id = p.movie_id), '[]'::json),
			'keywords', COALESCE((SELECT json_agg(json_build_object('tmdb_id', k.tmdb_id, 'name', k.name) ORDER BY k.ctid)
				FROM legacy_movie_keywords k WHERE k.movie_id = p.movie_id), '[]'::json),
			'cast', COALESCE((SELECT json_agg(json_build_object('person_id', pe.id, 'tmdb_person_id', c.tmdb_person_id,
					'name', c.name, 'character', c.character, 'billing_order', c.billing_order, 'profile_path', c.profile_path)
					ORDER BY c.billing_order, c.ctid)
				FROM legacy_movie_cast c JOIN legacy_persons pe ON pe.tmdb_person_id = c.tmdb_person_id
				WHERE c.movie_id = p.movie_id), '[]'::json),
			'crew', COALESCE((SELECT json_agg(json_build_object('person_id', pe.id, 'tmdb_person_id', c.tmdb_person_id,
					'name', c.name, 'job', c.job, 'department', c.department, 'profile_path', c.profile_path) ORDER BY c.ctid)
				FROM legacy_movie_crew c JOIN legacy_persons pe ON pe.tmdb_person_id = c.tmdb_person_id
				WHERE c.movie_id = p.movie_id), '[]'::json),
			'enriched_at', to_char(p.enriched_at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::text,
			` + ts("p.enriched_at") + `
		FROM legacy_movie_profiles p WHERE p.movie_id IN (SELECT id FROM movies) AND p.enriched_at IS NOT NULL`,
		expect: `SELECT count(*) FROM legacy_movie_profiles`},
	{name: "keywords", from: "movie_keywords",
		expect: `SELECT count(*) FROM legacy_movie_keywords WHERE movie_id NOT IN (SELECT movie_id FROM movie_profiles)`},
	{name: "persons", from: "persons",
		expect: `SELECT count(*) FROM legacy_persons WHERE id NOT IN (SELECT id FROM people)`},
	{name: "reviews", from: "reviews",
		insert: `INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at,
			updated_at, remote_actor_url, ap_id)
		SELECT id, user_id, movie_id, rating, comment, watch_medium, ` + ts("watched_at") + `, ` + ts("created_at") + `,
			` + ts("created_at") + `, remote_actor_url, ap_id FROM legacy_reviews
		WHERE movie_id IN (SELECT id FROM movies) AND (remote_actor_url IS NOT NULL OR user_id IN (SELECT id FROM users))`,
		expect: `SELECT count(*) FROM legacy_reviews`},
	{name: "remote review ids", run: rekeyRemoteReviews},
	{name: "watchlist", from: "watchlist_entries",
		insert: `INSERT INTO watchlist (user_id, movie_id, added_at)
		SELECT user_id, movie_id, ` + ts("added_at") + ` FROM legacy_watchlist_entries
		WHERE user_id IN (SELECT id FROM users) AND movie_id IN (SELECT id FROM movies) ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_watchlist_entries`},
	{name: "follows",
		insert: `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status, created_at)
		SELECT 'local', f.local_user_id, CASE WHEN t.id IS NULL THEN 'remote' ELSE 'local' END,
			COALESCE(t.id, f.remote_actor_url), f.status, ` + tsOrNow("f.created_at") + `
		FROM legacy_ap_following f ` + localUser("t", "f.remote_actor_url") + `
		WHERE f.status IN ('pending', 'accepted') AND f.local_user_id IN (SELECT id FROM users) ON CONFLICT DO NOTHING`},
	{name: "followers",
		insert: `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status, created_at)
		SELECT CASE WHEN t.id IS NULL THEN 'remote' ELSE 'local' END, COALESCE(t.id, f.remote_actor_url), 'local',
			f.local_user_id, f.status, ` + tsOrNow("f.created_at") + `
		FROM legacy_ap_followers f ` + localUser("t", "f.remote_actor_url") + `
		WHERE f.status IN ('pending', 'accepted') AND f.local_user_id IN (SELECT id FROM users) ON CONFLICT DO NOTHING`},
	{name: "blocks", from: "blocked_actors",
		insert: `INSERT INTO blocks (blocker_id, target_kind, target_id, created_at)
		SELECT b.local_user_id, CASE WHEN t.id IS NULL THEN 'remote' ELSE 'local' END, COALESCE(t.id, b.remote_actor_url),
			` + tsOrNow(textTS("b.blocked_at")) + ` FROM legacy_blocked_actors b ` + localUser("t", "b.remote_actor_url") + `
		WHERE b.local_user_id IN (SELECT id FROM users) ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_blocked_actors`},
	{name: "domain blocks", from: "blocked_domains",
		insert: `INSERT INTO domain_blocks (domain, reason, blocked_at)
		SELECT lower(domain), reason, ` + tsOrNow(textTS("blocked_at")) + ` FROM legacy_blocked_domains ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_blocked_domains`},
	{name: "remote actors",
		// The original cached no public keys: key_id and public_key stay empty and fetched_at 0,
		// so the first use fetches the actor document again.
		insert: `INSERT INTO remote_actors (url, inbox, shared_inbox, outbox, handle, display_name, key_id, public_key, fetched_at)
		SELECT url, inbox_url, shared_inbox_url, outbox_url, handle, display_name, '', '', 0 FROM legacy_ap_remote_actors
		ON CONFLICT DO NOTHING`},
	{name: "actor keys", from: "ap_local_actors",
		insert: `INSERT INTO actor_keys (owner_id, private_key_pem, public_key_pem, created_at)
		SELECT user_id, private_key, public_key, ` + msOrNow("created_at") + ` FROM legacy_ap_local_actors
		WHERE user_id IN (SELECT id FROM users) OR user_id = '` + legacy.InstanceActor + `'`,
		expect: `SELECT count(*) FROM legacy_ap_local_actors`},
	{name: "inbound activities", from: "ap_activities",
		insert: `INSERT INTO inbox_activities (activity_id, actor_url, received_at)
		SELECT id, '', ` + msOrNow("processed_at") + ` FROM legacy_ap_activities ON CONFLICT DO NOTHING`,
		expect: `SELECT count(*) FROM legacy_ap_activities`},
	{name: "wrap-ups", from: "wrap_up_records",
		// One live wrap-up per user and range: the best of a group (Ready first, then the
		// newest) stays live, the others become Failed, saying why.
		insert: `INSERT INTO wrapups (id, user_id, status, start_date, end_date, created_at, completed_at, error_message, report)
		SELECT id, user_id,
			CASE WHEN live AND rn > 1 THEN 'Failed'
				WHEN lower(status) = 'pending' THEN 'Pending' WHEN lower(status) = 'generating' THEN 'Generating'
				WHEN lower(status) = 'ready' THEN 'Ready' ELSE 'Failed' END,
			to_char(start_date, 'YYYY-MM-DD'), to_char(end_date, 'YYYY-MM-DD'), ` + tsOrNow("created_at") + `, ` + ts("completed_at") + `,
			CASE WHEN live AND rn > 1 THEN 'superseded when adopted from movies-diary: another live wrap-up covers the same range'
				ELSE error_message END, report_json
		FROM (SELECT w.*, lower(w.status) IN ('pending', 'generating', 'ready') AS live,
				row_number() OVER (PARTITION BY COALESCE(w.user_id, ''), w.start_date, w.end_date,
					lower(w.status) IN ('pending', 'generating', 'ready')
					ORDER BY lower(w.status) = 'ready' DESC, w.created_at DESC, w.id) AS rn
			FROM legacy_wrap_up_records w WHERE w.user_id IS NULL OR w.user_id IN (SELECT id FROM users)) x`,
		expect: `SELECT count(*) FROM legacy_wrap_up_records`},
	{name: "profiles", needs: 125,
		insert: `UPDATE users SET avatar_key = u.avatar_path, banner_key = u.banner_path,
			also_known_as = nullif(u.also_known_as, ''),
			profile_fields = COALESCE((SELECT json_agg(json_build_object('name', f.name, 'value', f.value) ORDER BY f.position, f.id)
				FROM legacy_user_profile_fields f WHERE f.user_id = u.id)::text, '[]')
		FROM legacy_users u WHERE u.id = users.id`},
	{name: "profile fields", needs: 125, from: "user_profile_fields",
		expect: `SELECT count(*) FROM legacy_user_profile_fields WHERE user_id NOT IN (SELECT id FROM users)`},
	{name: "goals", needs: 126, from: "goals",
		insert: `INSERT INTO goals (id, user_id, year, target_count, created_at, updated_at)
		SELECT id, user_id, year, target_count, ` + tsOrNow("created_at") + `, ` + tsOrNow("created_at") + `
		FROM legacy_goals WHERE user_id IN (SELECT id FROM users) AND year BETWEEN 2020 AND 9999 AND target_count >= 1`,
		expect: `SELECT count(*) FROM legacy_goals`},
	// What SQLite's migration 0185 does: both sides store the token's SHA-256 hex, so a media
	// server configured for the original keeps working.
	{name: "webhook tokens", needs: 185,
		insert: `INSERT INTO webhook_tokens (id, user_id, provider, label, token_hash, auto_confirm_rating, created_at, last_used_at)
		SELECT id, user_id, provider, nullif(trim(label), ''), lower(token_hash), NULL, ` + msOrNow("created_at") + `,
			` + ms("last_used_at") + `
		FROM legacy_webhook_tokens WHERE user_id IN (SELECT id FROM users) ON CONFLICT DO NOTHING;
		DROP TABLE legacy_webhook_tokens`},
	// What SQLite's migration 0186 does; the title keys are computed in Go (rekeyWatches).
	{name: "watch events", needs: 186,
		insert: `INSERT INTO watch_events (id, user_id, source, title, year, external_id, movie_id, dedup_key, status,
			review_id, watched_at, closed_at)
		SELECT w.id, w.user_id, w.source, w.title, w.year, w.ext, m.id,
			COALESCE(w.ext, 'title:' || lower(trim(w.title)) || '|' || COALESCE(w.year::text, '')),
			w.status, NULL, w.watched, CASE WHEN w.status = 'pending' THEN NULL ELSE COALESCE(w.created, w.watched) END
		FROM (SELECT id, user_id, movie_id, title, year, source, lower(status) AS status,
				CASE WHEN trim(external_metadata_id) ~ '^tt[0-9]+$' AND length(trim(external_metadata_id)) <= 14
						THEN trim(external_metadata_id)
					WHEN trim(external_metadata_id) ~ '^tmdb:[0-9]+$' AND length(trim(external_metadata_id)) <= 17
						THEN trim(external_metadata_id) END AS ext,
				COALESCE(` + ms("watched_at") + `, ` + ms("created_at") + `, ` + ms("now()") + `) AS watched,
				` + ms("created_at") + ` AS created
			FROM legacy_watch_events) w
		LEFT JOIN movies m ON m.id = w.movie_id
		WHERE w.user_id IN (SELECT id FROM users) AND w.status IN ('pending', 'confirmed', 'dismissed')
		ON CONFLICT DO NOTHING`},
	{name: "watch event keys", needs: 186, run: rekeyWatches},
	{name: "import profiles", needs: 187, run: carryImportProfiles},
	{name: "adopted history", needs: 300, run: markAdoptedHistory},
}

// adoptLegacy converts a database made by the original movies-diary, if db is one; it does
// nothing on any other database. The caller holds the migration lock.
func adoptLegacy(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	var original bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, legacy.VersionsTable).Scan(&original); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if !original {
		return nil
	}
	queue, err := checkLegacyVersions(ctx, db)
	if err != nil {
		return err
	}
	shape, err := legacy.PostgreSQL.CompareShape(ctx, inspector{db}, queue)
	if err != nil {
		return err
	}
	if !queue {
		log.Info("movies-diary ran on NATS (no event_queue): no outbox rows to carry; its undelivered events are in its JetStream stream, which the worker takes under its consumer's name (keep NATS_CONSUMER_NAME as it was, by default worker)")
	}
	var ours bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, migrationsTable).Scan(&ours); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if ours {
		// Only what a failed run of golang-migrate on the original leaves: its own table,
		// dirty at our first version.
		var v int64
		var dirty bool
		if err := db.QueryRowContext(ctx, `SELECT version, dirty FROM `+migrationsTable).Scan(&v, &dirty); err != nil &&
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
	log.Warn("database made by movies-diary: adopting it (once)")
	rep, err := convertLegacy(ctx, db, shape, log)
	if err != nil {
		return fmt.Errorf("nothing was changed: %w", err)
	}
	legacy.LogShape(log, rep.outcome, rep.backup)
	for _, e := range rep.settled {
		log.Warn("adopted outbox rows settled, not delivered", "event_type", e.eventType, "status", e.status, "rows", e.rows,
			"reason", e.reason)
	}
	log.Warn("adopted movies-diary database", "schema_version", pgAdoptVersion, "backup", "schema "+rep.backup,
		"carried", rep.carried, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// checkLegacyVersions accepts exactly the original's last schema on PostgreSQL, on the database
// bus or on NATS, and reports which.
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
	var table bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('event_queue') IS NOT NULL`).Scan(&table); err != nil {
		return false, err
	}
	return legacy.PostgreSQL.CheckVersions(got, table)
}

// checkCaseCollisions refuses accounts that differ only in letter case: ours compare without
// case (citext), so they could not both be carried.
func checkCaseCollisions(ctx context.Context, db *sql.DB) error {
	var clashes []string
	for _, col := range []string{"username", "email"} {
		got, err := legacy.Strings(ctx, db, `SELECT string_agg(`+col+`, ' / ' ORDER BY `+col+`) FROM users
			WHERE id <> $1 GROUP BY lower(`+col+`) HAVING count(*) > 1 ORDER BY 1`, legacy.InstanceActor)
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

// inspector reads the current schema for legacy.Engine.CompareShape and legacy.Report.
type inspector struct {
	q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}
}

func (i inspector) Tables(ctx context.Context) ([]string, error) {
	return legacy.Strings(ctx, i.q, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
}

func (i inspector) Columns(ctx context.Context, table string) ([]string, error) {
	return legacy.Strings(ctx, i.q, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
}

func (i inspector) Values(ctx context.Context, table, column string) (int64, error) {
	c := "*"
	if column != "" {
		c = quoteIdent(column)
	}
	var n int64
	err := i.q.QueryRowContext(ctx, `SELECT count(`+c+`) FROM `+quoteIdent(table)).Scan(&n)
	return n, err
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// adoptReport says what a conversion did.
type adoptReport struct {
	backup  string           // the backup schema
	carried map[string]int64 // rows written per step
	kept    []string         // legacy tables kept because some of their rows were not carried
	outcome legacy.Outcome
	settled []settledEvents
}

// convertLegacy backs the original up and converts it, in one transaction.
func convertLegacy(ctx context.Context, db *sql.DB, shape legacy.Diff, log *slog.Logger) (adoptReport, error) {
	rep := adoptReport{carried: map[string]int64{}}
	began := time.Now()
	tx, err := sqlx.NewDb(db, driverName).BeginTxx(ctx, nil)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL TimeZone = 'UTC'`); err != nil {
		return rep, err
	}
	tables, err := inspector{tx}.Tables(ctx)
	if err != nil {
		return rep, err
	}
	// Nothing writes the original's tables from here to the commit.
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = quoteIdent(t)
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE `+strings.Join(quoted, ", ")+` IN EXCLUSIVE MODE`); err != nil {
		return rep, fmt.Errorf("lock the original's tables: %w", err)
	}
	if rep.backup, err = writeBackup(ctx, tx, tables); err != nil {
		return rep, fmt.Errorf("no verified backup, not adopting: %w", err)
	}
	log.Info("backup written and verified", "schema", rep.backup, "tables", len(tables),
		"duration", time.Since(began).Round(time.Millisecond))

	if _, err := tx.ExecContext(ctx, `CREATE FUNCTION pg_temp.adopt_ts(t text) RETURNS timestamptz LANGUAGE plpgsql AS $$
		BEGIN RETURN t::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$`); err != nil {
		return rep, err
	}
	if err := renameLegacy(ctx, tx); err != nil {
		return rep, err
	}
	files, err := migrations.UpTo(pgmigrations.FS, pgAdoptVersion)
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
	for _, f := range files {
		kept := false
		if f.Version == 100 {
			if kept, err = keepOutbox(ctx, tx); err != nil {
				return rep, err
			}
		}
		if !kept {
			body, err := fs.ReadFile(pgmigrations.FS, f.Name)
			if err != nil {
				return rep, err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return rep, fmt.Errorf("migration %s: %w", f.Name, err)
			}
		}
		if err := carryUpTo(f.Version); err != nil {
			return rep, err
		}
	}
	if len(steps) > 0 {
		return rep, fmt.Errorf("carry %s: needs migration %d, not embedded", steps[0].name, steps[0].need())
	}
	// Drop what was carried completely; keep the rest.
	for _, c := range carries {
		if c.from == "" || slices.Contains(legacy.Kept, c.from) {
			continue
		}
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, "legacy_"+c.from).Scan(&exists); err != nil {
			return rep, err
		} else if !exists {
			continue
		}
		var want int64
		if err := tx.QueryRowContext(ctx, c.expect).Scan(&want); err != nil {
			return rep, fmt.Errorf("count %s: %w", c.from, err)
		}
		n := rep.carried[c.name]
		if c.insert == "" && c.run == nil {
			// A contributing table: its expect counts the rows that had nowhere to go.
			want, n = 0, want
		}
		if n == want {
			if _, err := tx.ExecContext(ctx, `DROP TABLE `+quoteIdent("legacy_"+c.from)); err != nil {
				return rep, err
			}
		} else {
			rep.kept = append(rep.kept, "legacy_"+c.from)
		}
	}
	if rep.outcome, err = legacy.Report(ctx, inspector{tx}, shape, rep.kept); err != nil {
		return rep, err
	}
	if rep.settled, err = settleLegacyEvents(ctx, tx); err != nil {
		return rep, err
	}
	// The original's search tables are dropped; the worker rebuilds ours from the carried rows.
	if err := outbox.Insert(ctx, tx, time.Now(), domain.SearchReindexRequested{}); err != nil {
		return rep, fmt.Errorf("request a search reindex: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+migrationsTable+` (version bigint NOT NULL PRIMARY KEY,
		dirty boolean NOT NULL)`); err != nil {
		return rep, fmt.Errorf("record schema version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+migrationsTable); err != nil {
		return rep, fmt.Errorf("record schema version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+migrationsTable+` (version, dirty) VALUES ($1, false)`, pgAdoptVersion); err != nil {
		return rep, fmt.Errorf("record schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return rep, err
	}
	log.Debug("adopt: committed", "duration", time.Since(began).Round(time.Millisecond))
	return rep, nil
}

// writeBackup copies every original table into a new schema (backupSchema, or with the time
// when that name is taken) and verifies each copy: the same number of rows and the same
// order-free sum of the rows' hashes.
func writeBackup(ctx context.Context, tx *sqlx.Tx, tables []string) (string, error) {
	schema := backupSchema
	var taken bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&taken); err != nil {
		return "", err
	}
	if taken {
		schema += "_" + time.Now().UTC().Format("20060102t150405z")
	}
	if _, err := tx.ExecContext(ctx, `CREATE SCHEMA `+quoteIdent(schema)); err != nil {
		return "", fmt.Errorf("create schema %s: %w", schema, err)
	}
	for _, t := range tables {
		src, dst := quoteIdent(t), quoteIdent(schema)+"."+quoteIdent(t)
		if _, err := tx.ExecContext(ctx, `CREATE TABLE `+dst+` AS TABLE `+src); err != nil {
			return "", fmt.Errorf("copy %s: %w", t, err)
		}
		digest := func(table string) (string, error) {
			var d string
			err := tx.QueryRowContext(ctx, `SELECT count(*) || ' ' || COALESCE(sum(hashtextextended(r::text, 0)::numeric), 0)
				FROM `+table+` r`).Scan(&d)
			return d, err
		}
		a, err := digest(src)
		if err != nil {
			return "", fmt.Errorf("verify %s: %w", t, err)
		}
		b, err := digest(dst)
		if err != nil {
			return "", fmt.Errorf("verify %s: %w", t, err)
		}
		if a != b {
			return "", fmt.Errorf("copy of %s differs from the original (rows and hash %s, copy %s)", t, a, b)
		}
	}
	return schema, nil
}

// renameLegacy drops the derived and secret tables and our failed start's version table, drops
// the foreign keys of the others (they name tables that are about to be replaced), and renames
// every other original table with its indexes and sequences to legacy_<name>: relation names
// are per schema, and ours reuse the original's.
func renameLegacy(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+migrationsTable); err != nil {
		return err
	}
	for _, t := range legacy.PostgreSQL.Dropped() {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+quoteIdent(t)+` CASCADE`); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	fks, err := legacy.Strings(ctx, tx, `SELECT format('ALTER TABLE %I DROP CONSTRAINT %I', c.conrelid::regclass::text, c.conname)
		FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`)
	if err != nil {
		return err
	}
	renames, err := legacy.Strings(ctx, tx, `SELECT format('ALTER %s %I RENAME TO %I',
			CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'S' THEN 'SEQUENCE' ELSE 'INDEX' END, c.relname, 'legacy_' || c.relname)
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i', 'S')
		ORDER BY c.relkind, c.relname`)
	if err != nil {
		return err
	}
	for _, stmt := range append(fks, renames...) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// runCarry runs one step, recording how many rows it wrote.
func runCarry(ctx context.Context, tx *sqlx.Tx, c carry, rep *adoptReport, log *slog.Logger) error {
	began := time.Now()
	var n int64
	switch {
	case c.run != nil:
		var err error
		if n, err = c.run(ctx, tx); err != nil {
			return fmt.Errorf("carry %s: %w", c.name, err)
		}
	case c.insert != "":
		// The first statement's rows count (a step may add statements after it: a DROP, a setval).
		first, rest, _ := strings.Cut(c.insert, ";\n")
		res, err := tx.ExecContext(ctx, first)
		if err != nil {
			return fmt.Errorf("carry %s: %w", c.name, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if strings.TrimSpace(rest) != "" {
			if _, err := tx.ExecContext(ctx, rest); err != nil {
				return fmt.Errorf("carry %s: %w", c.name, err)
			}
		}
	default:
		return nil
	}
	rep.carried[c.name] = n
	log.Debug("adopt: carried", "step", c.name, "rows", n, "duration", time.Since(began).Round(time.Millisecond))
	return nil
}
