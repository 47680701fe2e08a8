package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
	"moviesdiary/internal/usecase/integration"
)

// logRecords collects a logger's records as attribute maps (with "msg" and "level").
type logRecords struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (l *logRecords) logger() *slog.Logger { return slog.New(&recordHandler{l: l}) }

// with returns the records whose message is msg.
func (l *logRecords) with(msg string) []map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]string
	for _, r := range l.recs {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

type recordHandler struct{ l *logRecords }

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.l.mu.Lock()
	h.l.recs = append(h.l.recs, m)
	h.l.mu.Unlock()
	return nil
}

// migrateURL opens a store on url and migrates it as a server or worker does at start-up.
func migrateURL(t testing.TB, url string, log *slog.Logger) error {
	t.Helper()
	s, err := postgres.OpenMigrated(context.Background(), url, log)
	if err != nil {
		return err
	}
	return s.Close()
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// wantRefused makes an original, changes it with change, starts on it, and wants the adoption
// refused with an error containing each of want and the database left as it was.
func wantRefused(t *testing.T, change string, want ...string) {
	t.Helper()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	if _, err := db.Exec(change); err != nil {
		t.Fatal(err)
	}
	before := dumpDB(t, db)
	err := migrateURL(t, url, discard())
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("migrate after %q: %v, want a refusal saying %q", change, err, w)
		}
	}
	if dumpDB(t, db) != before {
		t.Error("a refused adoption changed the database")
	}
}

// TestAdoptRefusesAnOlderOriginal: a database the original left at an older schema is refused,
// unchanged, with the way forward in the error (not PostgreSQL's "relation already exists").
func TestAdoptRefusesAnOlderOriginal(t *testing.T) {
	t.Parallel()
	wantRefused(t, `DELETE FROM _sqlx_migrations WHERE version = 29`, "last movies-diary release")
}

// TestAdoptRefusesAMissingColumn: a table of the original's last schema without one of its
// columns, or a table missing, is not that schema: refused unchanged, naming both.
func TestAdoptRefusesAMissingColumn(t *testing.T) {
	t.Parallel()
	wantRefused(t, `ALTER TABLE reviews DROP COLUMN watch_medium; DROP TABLE ap_announces`,
		"column reviews.watch_medium", "table ap_announces")
}

// TestAdoptRefusesAQueueVersionWithoutItsTable: version 100 without event_queue is neither shape
// the original leaves.
func TestAdoptRefusesAQueueVersionWithoutItsTable(t *testing.T) {
	t.Parallel()
	wantRefused(t, `DROP TABLE event_queue`, "event_queue")
}

// TestAdoptCarriesEveryRow: a database on the database bus is adopted: a verified backup
// schema, every row carried (users sign in with their old passwords), the open outbox rows
// each with their fate, and a second start changes nothing.
func TestAdoptCarriesEveryRow(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	var log logRecords
	if err := migrateURL(t, url, log.logger()); err != nil {
		t.Fatalf("migrate a movies-diary database: %v", err)
	}
	latest, err := postgres.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT version, dirty FROM schema_migrations`, []string{fmt.Sprint(latest), "false"})
	// The backup holds every original table, row for row.
	wantRows(t, db, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'movies_diary_backup'`, []string{"33"})
	wantRows(t, db, `SELECT (SELECT count(*) FROM movies_diary_backup._sqlx_migrations), (SELECT count(*) FROM movies_diary_backup.event_queue),
		(SELECT count(*) FROM movies_diary_backup.users)`, []string{"24", "9", "3"})

	checkAdoptedTables(t, db)

	// The outbox: times in Unix ms, a stranded claim taken over at once, every open row's fate.
	wantRows(t, db, `SELECT id, event_type, status, attempts, created_at, claimed_at, last_error FROM event_queue WHERE id <= 9 ORDER BY id`,
		[]string{"1", "SearchReindexRequested", "pending", "0", "1735787045000", "<nil>", "<nil>"},
		[]string{"2", "SearchReindexRequested", "processing", "1", "1735787046000", "0", "nack"},
		[]string{"3", "SearchReindexRequested", "done", "0", "1735787047000", "<nil>", "<nil>"},
		[]string{"4", "SearchReindexRequested", "dead_lettered", "5", "1735787048000", "<nil>", "max attempts reached"},
		[]string{"5", "BackfillFollower", "pending", "0", "1735862400000", "<nil>", "<nil>"},
		[]string{"6", "Unfollowed", "done", "0", "1735862401000", "<nil>", domain.LegacyEffected},
		[]string{"7", "FollowAccepted", "done", "1", "1735862402000", "<nil>", domain.LegacyEffected},
		[]string{"8", "WatchEventIngested", "done", "0", "1735862403000", "<nil>", domain.LegacyUnconsumed},
		[]string{"9", "MysteryEvent", "dead_lettered", "2", "1735862404000", "<nil>", domain.LegacyUnknown})
	wantRows(t, db, `SELECT id, event_type, status FROM event_queue WHERE id > 9`, []string{"10", "SearchReindexRequested", "pending"})
	wantRows(t, db, `SELECT count(DISTINCT event_id) FROM event_queue`, []string{"10"})
	var settled []string
	for _, r := range log.with("adopted outbox rows settled, not delivered") {
		settled = append(settled, r["event_type"]+" "+r["status"]+" "+r["rows"]+" "+r["level"])
	}
	if want := []string{"FollowAccepted done 1 WARN", "Unfollowed done 1 WARN", "WatchEventIngested done 1 WARN",
		"MysteryEvent dead_lettered 1 WARN"}; fmt.Sprint(settled) != fmt.Sprint(want) {
		t.Errorf("settled-rows warnings\n got %q\nwant %q", settled, want)
	}

	// Everyone signs in with the old password.
	for _, u := range []struct{ name, password string }{{"alice", lgAlicePassword}, {"bob", lgBobPassword}} {
		hash := rowsOf(t, db, `SELECT password_hash FROM users WHERE username = $1`, u.name)
		if len(hash) != 1 || !lgHasher.Verify(u.password, hash[0][0]) || lgHasher.Verify("wrong", hash[0][0]) {
			t.Errorf("%s cannot sign in with the old password (%v)", u.name, hash)
		}
	}

	first := dumpDB(t, db)
	if err := migrateURL(t, url, discard()); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if dumpDB(t, db) != first {
		t.Error("the second start changed the database")
	}
}

// checkAdoptedTables checks every row the fixture's tables (but the outbox) were carried to.
func checkAdoptedTables(t testing.TB, db *sql.DB) {
	t.Helper()
	wantRows(t, db, `SELECT id, username, email, is_admin, display_name, bio, created_at, avatar_key, banner_key,
		also_known_as, profile_fields::jsonb::text FROM users ORDER BY username`,
		[]string{lgAlice, "alice", "alice@example.org", "true", "Alice A.", "Films.", "2024-03-01T10:20:30.123Z",
			"avatars/alice.webp", "banners/alice.webp", "https://old.example/users/alice",
			`[{"name": "Site", "value": "https://a.example"}, {"name": "Pronouns", "value": "she/her"}]`},
		[]string{lgBob, "bob", "bob@example.org", "false", "<nil>", "<nil>", "2024-03-02T08:00:00.000Z", "<nil>", "<nil>",
			"<nil>", "[]"})
	wantRows(t, db, `SELECT user_id, federate_reviews, federate_watchlist, federate_goals FROM user_settings`,
		[]string{lgAlice, "true", "false", "false"})
	wantRows(t, db, `SELECT id, external_metadata_id, title, release_year, created_at, genres::jsonb::text, runtime_minutes
		FROM movies ORDER BY title`,
		[]string{lgHandMade, "<nil>", "Home Movie", "2020", "2024-03-06T21:00:00.000Z", "[]", "<nil>"},
		[]string{lgMatrix, "tmdb:603", "The Matrix", "1999", "2024-02-02T10:00:00.000Z", `["Action", "Science Fiction"]`, "136"})
	wantRows(t, db, `SELECT id, name, enriched_at FROM people ORDER BY name`,
		[]string{"55555555-5555-4555-8555-555555555555", "Keanu Reeves", "2024-03-03T09:00:00.000Z"},
		[]string{"66666666-6666-4666-8666-666666666666", "Lana Wachowski", "<nil>"})
	wantRows(t, db, `SELECT movie_id, person_id, kind, role, department, billing_order FROM movie_credits ORDER BY kind`,
		[]string{lgMatrix, "55555555-5555-4555-8555-555555555555", "cast", "Neo", "<nil>", "0"},
		[]string{lgMatrix, "66666666-6666-4666-8666-666666666666", "crew", "Director", "Directing", "<nil>"})
	wantRows(t, db, `SELECT profile::jsonb #>> '{tagline}', profile::jsonb #>> '{cast,0,person_id}', profile::jsonb #>> '{enriched_at}',
		profile::jsonb #>> '{keywords,0,name}' FROM movie_profiles`,
		[]string{"Free your mind", "55555555-5555-4555-8555-555555555555", "2024-03-03T09:00:00Z", "artificial intelligence"})
	wantRows(t, db, `SELECT id, user_id, rating::text, watch_medium, watched_at, created_at, remote_actor_url FROM reviews
		ORDER BY remote_actor_url IS NOT NULL, id`,
		[]string{"77777777-7777-4777-8777-777777777771", lgAlice, "5", "cinema", "2024-03-05T20:00:00.000Z",
			"2024-03-05T22:10:00.000Z", "<nil>"},
		[]string{"77777777-7777-4777-8777-777777777772", lgBob, "3", "<nil>", "2024-03-06T19:00:00.000Z",
			"2024-03-06T21:00:00.000Z", "<nil>"},
		[]string{federation.RemoteReviewID("https://social.example/reviews/1").String(), lgRemoteUser, "4", "<nil>",
			"2024-02-01T18:00:00.000Z", "2024-02-02T10:00:00.000Z", lgRemote})
	wantRows(t, db, `SELECT user_id, movie_id, added_at FROM watchlist`, []string{lgBob, lgMatrix, "2024-03-04T12:00:00.000Z"})
	wantRows(t, db, `SELECT follower_kind, follower_id, target_kind, target_id, status, created_at FROM follows
		ORDER BY follower_id, target_id`,
		[]string{"local", lgAlice, "local", lgBob, "accepted", "2024-03-01T02:00:00.000Z"},
		[]string{"local", lgAlice, "remote", lgRemote, "accepted", "2024-03-01T01:00:00.000Z"},
		[]string{"remote", lgRemote2, "local", lgBob, "pending", "2024-03-01T05:00:00.000Z"},
		[]string{"remote", lgRemote, "local", lgAlice, "accepted", "2024-03-01T04:00:00.000Z"})
	wantRows(t, db, `SELECT blocker_id, target_kind, target_id, created_at FROM blocks`,
		[]string{lgBob, "remote", "https://spam.example/users/x", "2024-03-07T00:00:00.000Z"})
	wantRows(t, db, `SELECT domain, reason, blocked_at FROM domain_blocks`, []string{"spam.example", "spam", "2024-03-07T00:00:01.000Z"})
	wantRows(t, db, `SELECT url, inbox, shared_inbox, key_id, fetched_at FROM remote_actors ORDER BY url`,
		[]string{lgRemote2, "https://other.example/users/dave/inbox", "<nil>", "", "0"},
		[]string{lgRemote, "https://social.example/users/carol/inbox", lgShared, "", "0"})
	wantRows(t, db, `SELECT owner_id, private_key_pem, created_at FROM actor_keys ORDER BY owner_id`,
		[]string{"00000000-0000-4000-8000-000000000000", "PRIVATE-I", "1704067200000"},
		[]string{lgAlice, "PRIVATE-A", "1709288431000"})
	wantRows(t, db, `SELECT activity_id, received_at, adopted_at IS NOT NULL FROM inbox_activities`,
		[]string{"https://social.example/activities/1", "1709265600000", "true"})
	wantRows(t, db, `SELECT id, user_id, status, start_date, created_at, error_message, adopted_at IS NOT NULL FROM wrapups ORDER BY id`,
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1", lgAlice, "Ready", "2024-01-01", "2025-01-01T00:00:00.000Z", "<nil>", "true"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee2", lgAlice, "Failed", "2024-01-01", "2024-12-01T00:00:00.000Z",
			"superseded when adopted from movies-diary: another live wrap-up covers the same range", "true"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3", "<nil>", "Pending", "2024-01-01", "2025-01-02T00:00:00.000Z", "<nil>", "true"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee4", lgBob, "Failed", "2023-01-01", "2024-01-01T00:00:00.000Z", "no reviews", "true"})
	wantRows(t, db, `SELECT id, user_id, year, target_count, created_at FROM goals`,
		[]string{"ffffffff-ffff-4fff-8fff-ffffffffffff", lgAlice, "2025", "50", "2025-01-01T10:00:00.000Z"})
	wantRows(t, db, `SELECT count(*) FROM refresh_sessions`, []string{"0"})
	wantRows(t, db, `SELECT id, user_id, provider, label, token_hash, created_at, last_used_at FROM webhook_tokens ORDER BY id`,
		[]string{"99999999-9999-4999-8999-999999999998", lgAlice, "plex", "<nil>", integration.HashToken("plex-" + lgWebhookSecret),
			"1709337600000", "1709985600000"},
		[]string{"99999999-9999-4999-8999-999999999999", lgBob, "jellyfin", "living room", integration.HashToken(lgWebhookSecret),
			"1709251200000", "<nil>"})
	wantRows(t, db, `SELECT id, external_id, movie_id, dedup_key, status, watched_at, closed_at FROM watch_events ORDER BY id`,
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "tmdb:603", lgMatrix, "tmdb:603", "pending", "1709586000000", "<nil>"},
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaab", "<nil>", "<nil>", "title:léon|1994", "pending", "1709935200000", "<nil>"},
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaac", "tt0113277", "<nil>", "tt0113277", "dismissed", "1709409600000", "1709409605000"})
	wantRows(t, db, `SELECT id, name, mappings, created_at FROM import_profiles ORDER BY id`,
		[]string{"bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "Letterboxd",
			`[{"source_column":"Name","domain_field":"title"},{"source_column":"Rating","domain_field":"rating","rating_scale":2.0},` +
				`{"source_column":"Date","domain_field":"watched_at","date_format":"%d/%m/%Y"},` +
				`{"source_column":"Year","domain_field":"release_year"}]`,
			"2024-03-01T00:00:00.000Z"},
		[]string{"bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbc", "Broken", "[]", "2024-03-03T00:00:00.000Z"})
	wantRows(t, db, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
		AND table_name LIKE 'legacy%' ORDER BY 1`,
		[]string{"legacy__sqlx_migrations"}, []string{"legacy_ap_announces"}, []string{"legacy_ap_followers"},
		[]string{"legacy_ap_following"}, []string{"legacy_ap_remote_actors"}, []string{"legacy_ap_remote_watchlist_entries"},
		[]string{"legacy_remote_goals"})
}

// TestAdoptNATSDeployment: a deployment that ran on NATS (no event_queue, no version 100) is
// adopted; its outbox starts with the adoption's reindex request.
func TestAdoptNATSDeployment(t *testing.T) {
	t.Parallel()
	url := newNATSLegacyDB(t)
	db := rawDB(t, url)
	if err := migrateURL(t, url, discard()); err != nil {
		t.Fatalf("migrate a movies-diary database that ran on NATS: %v", err)
	}
	wantRows(t, db, `SELECT id, event_type, status FROM event_queue`, []string{"1", "SearchReindexRequested", "pending"})
	checkAdoptedTables(t, db)
	first := dumpDB(t, db)
	if err := migrateURL(t, url, discard()); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if dumpDB(t, db) != first {
		t.Error("the second start changed the database")
	}
}

// TestAdoptSaysWhatItKeepsAndDrops: an unknown table is kept as legacy_<name> with a warning,
// an unknown column is kept where its table is kept and dropped where its rows are carried,
// each with a warning.
func TestAdoptSaysWhatItKeepsAndDrops(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	if _, err := db.Exec(`CREATE TABLE push_subscriptions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id),
			endpoint TEXT NOT NULL);
		INSERT INTO push_subscriptions VALUES ('p1', '` + lgAlice + `', 'https://push.example/1');
		ALTER TABLE reviews ADD COLUMN spoiler BOOLEAN;
		UPDATE reviews SET spoiler = TRUE WHERE id = '77777777-7777-4777-8777-777777777771';
		ALTER TABLE ap_announces ADD COLUMN note TEXT`); err != nil {
		t.Fatal(err)
	}
	var log logRecords
	if err := migrateURL(t, url, log.logger()); err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT id, user_id, endpoint FROM legacy_push_subscriptions`, []string{"p1", lgAlice, "https://push.example/1"})
	var got []string
	for _, r := range log.with("kept original table") {
		got = append(got, r["table"]+" "+r["rows"])
	}
	for _, r := range log.with("kept column not in movies-diary's last schema") {
		got = append(got, "kept "+r["table"]+"."+r["column"]+" "+r["values"])
	}
	for _, r := range log.with("dropped column not in movies-diary's last schema: its values are only in the backup") {
		got = append(got, "dropped "+r["table"]+"."+r["column"]+" "+r["values"]+" "+r["backup"])
	}
	want := []string{"legacy_ap_announces 1", "legacy_ap_followers 3", "legacy_ap_following 3", "legacy_ap_remote_actors 2",
		"legacy_ap_remote_watchlist_entries 1", "legacy_push_subscriptions 1", "legacy_remote_goals 1",
		"kept legacy_ap_announces.note 0", "dropped reviews.spoiler 1 movies_diary_backup"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
	wantRows(t, db, `SELECT id, spoiler FROM movies_diary_backup.reviews WHERE spoiler`, []string{"77777777-7777-4777-8777-777777777771", "true"})
}

// TestAdoptRefusesCaseTwins: two accounts whose user names differ only in letter case (the
// original compared them exactly, we do not) are refused before anything is written, naming them.
func TestAdoptRefusesCaseTwins(t *testing.T) {
	t.Parallel()
	wantRefused(t, `INSERT INTO users (id, email, username, password_hash, created_at)
		VALUES ('12121212-1212-4121-8121-121212121212', 'other@example.org', 'Alice', 'x', '2024-03-01 00:00:00+00')`,
		"letter case", "Alice")
}

// TestAdoptServerAndWorkerAtOnce: the server and the worker start together on the original's
// database; one adopts it under the migration lock, the other waits and finds an ordinary
// database; both start, and the adoption happened once.
func TestAdoptServerAndWorkerAtOnce(t *testing.T) {
	t.Parallel()
	url := newLegacyDB(t)
	db := rawDB(t, url)
	var logs logRecords
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- migrateURL(t, url, logs.logger()) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a start beside another: %v", err)
		}
	}
	if n := len(logs.with("adopted movies-diary database")); n != 1 {
		t.Fatalf("%d adoptions, want 1", n)
	}
	checkAdoptedTables(t, db)
}
