package postgres_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/integration"
)

// legacySchema is the original movies-diary's PostgreSQL schema at its last version (sqlx
// versions 1, 2 and 9–29 from its main crate, 100 from its queue crate on the database bus),
// each table in its final shape, written from its migrations as a description of the format,
// with the explicit indexes (their names clash with ours: PostgreSQL's are per schema).
// _sqlx_migrations is the table sqlx itself creates.
const legacySchema = `
CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL,
	installed_on TIMESTAMPTZ NOT NULL DEFAULT now(), success BOOLEAN NOT NULL, checksum BYTEA NOT NULL,
	execution_time BIGINT NOT NULL);
CREATE TABLE movies (id TEXT PRIMARY KEY NOT NULL, external_metadata_id TEXT UNIQUE, title TEXT NOT NULL,
	release_year BIGINT NOT NULL, director TEXT, poster_path TEXT);
CREATE INDEX idx_movies_title_year ON movies (title, release_year);
CREATE TABLE users (id TEXT PRIMARY KEY NOT NULL, email TEXT UNIQUE NOT NULL, username TEXT UNIQUE NOT NULL,
	password_hash TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL, role TEXT NOT NULL DEFAULT 'standard', bio TEXT,
	avatar_path TEXT, banner_path TEXT, also_known_as TEXT, display_name TEXT);
CREATE TABLE reviews (id TEXT PRIMARY KEY NOT NULL, movie_id TEXT NOT NULL REFERENCES movies (id), user_id TEXT NOT NULL,
	rating BIGINT NOT NULL, comment TEXT, watched_at TIMESTAMPTZ NOT NULL, created_at TIMESTAMPTZ NOT NULL,
	remote_actor_url TEXT, ap_id TEXT, watch_medium TEXT);
CREATE UNIQUE INDEX idx_reviews_ap_id ON reviews (ap_id) WHERE ap_id IS NOT NULL;
CREATE INDEX idx_reviews_movie_id ON reviews (movie_id);
CREATE INDEX idx_reviews_watched_at ON reviews (watched_at);
CREATE TABLE ap_followers (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', follow_activity_id TEXT,
	created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE ap_following (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, follow_activity_id TEXT, status TEXT NOT NULL DEFAULT 'pending',
	created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE ap_remote_actors (url TEXT PRIMARY KEY, handle TEXT NOT NULL, inbox_url TEXT NOT NULL,
	shared_inbox_url TEXT, display_name TEXT, fetched_at TIMESTAMPTZ NOT NULL, avatar_url TEXT, outbox_url TEXT,
	bio TEXT, banner_url TEXT, followers_url TEXT, following_url TEXT, also_known_as TEXT);
CREATE TABLE ap_local_actors (user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	public_key TEXT NOT NULL, private_key TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL);
CREATE TABLE import_sessions (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, parsed_data TEXT NOT NULL,
	field_mappings TEXT, row_results TEXT, created_at TIMESTAMPTZ NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
CREATE TABLE import_profiles (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL,
	field_mappings TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL);
CREATE INDEX idx_import_sessions_user_id ON import_sessions (user_id);
CREATE INDEX idx_import_sessions_expires_at ON import_sessions (expires_at);
CREATE INDEX idx_import_profiles_user_id ON import_profiles (user_id);
CREATE TABLE ap_announces (id TEXT PRIMARY KEY, object_url TEXT NOT NULL, actor_url TEXT NOT NULL,
	announced_at TEXT NOT NULL);
CREATE INDEX idx_ap_announces_object ON ap_announces (object_url);
CREATE TABLE blocked_domains (domain TEXT PRIMARY KEY, reason TEXT, blocked_at TEXT NOT NULL);
CREATE TABLE blocked_actors (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, blocked_at TEXT NOT NULL, PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE movie_profiles (movie_id TEXT PRIMARY KEY NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_id BIGINT NOT NULL, imdb_id TEXT, overview TEXT, tagline TEXT, runtime_minutes INTEGER, budget_usd BIGINT,
	revenue_usd BIGINT, vote_average DOUBLE PRECISION, vote_count INTEGER, original_language TEXT,
	collection_name TEXT, enriched_at TIMESTAMPTZ NOT NULL);
CREATE TABLE movie_genres (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE, tmdb_id INTEGER NOT NULL,
	name TEXT NOT NULL, PRIMARY KEY (movie_id, tmdb_id));
CREATE TABLE movie_keywords (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_id INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (movie_id, tmdb_id));
CREATE TABLE movie_cast (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_person_id BIGINT NOT NULL, name TEXT NOT NULL, character TEXT NOT NULL, billing_order INTEGER NOT NULL,
	profile_path TEXT, PRIMARY KEY (movie_id, tmdb_person_id));
CREATE TABLE movie_crew (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_person_id BIGINT NOT NULL, name TEXT NOT NULL, job TEXT NOT NULL, department TEXT NOT NULL,
	profile_path TEXT, PRIMARY KEY (movie_id, tmdb_person_id, job));
CREATE INDEX idx_movie_cast_person ON movie_cast (tmdb_person_id);
CREATE INDEX idx_movie_crew_person ON movie_crew (tmdb_person_id);
CREATE INDEX idx_movie_genres_name ON movie_genres (name);
CREATE INDEX idx_movie_keywords_name ON movie_keywords (name);
CREATE TABLE persons (id TEXT PRIMARY KEY, external_id TEXT NOT NULL UNIQUE, tmdb_person_id BIGINT UNIQUE,
	name TEXT NOT NULL, known_for_department TEXT, profile_path TEXT, biography TEXT, birthday TEXT, deathday TEXT,
	place_of_birth TEXT, also_known_as TEXT, homepage TEXT, imdb_id TEXT, enriched_at TIMESTAMPTZ);
CREATE INDEX idx_persons_external ON persons (external_id);
CREATE INDEX idx_persons_tmdb_id ON persons (tmdb_person_id);
CREATE TABLE movies_search (movie_id TEXT PRIMARY KEY REFERENCES movies (id) ON DELETE CASCADE,
	fts TSVECTOR NOT NULL DEFAULT '');
CREATE INDEX idx_movies_search_fts ON movies_search USING GIN (fts);
CREATE TABLE people_search (person_id TEXT PRIMARY KEY REFERENCES persons (id) ON DELETE CASCADE,
	fts TSVECTOR NOT NULL DEFAULT '');
CREATE INDEX idx_people_search_fts ON people_search USING GIN (fts);
CREATE TABLE watchlist_entries (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE, added_at TIMESTAMPTZ NOT NULL,
	UNIQUE (user_id, movie_id));
CREATE INDEX idx_watchlist_user ON watchlist_entries (user_id, added_at DESC);
CREATE TABLE ap_remote_watchlist_entries (ap_id TEXT PRIMARY KEY NOT NULL, actor_url TEXT NOT NULL,
	movie_title TEXT NOT NULL, release_year INTEGER NOT NULL, external_metadata_id TEXT, poster_url TEXT,
	added_at TIMESTAMPTZ NOT NULL);
CREATE INDEX idx_remote_watchlist_actor ON ap_remote_watchlist_entries (actor_url);
CREATE TABLE user_profile_fields (id TEXT NOT NULL PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name TEXT NOT NULL, value TEXT NOT NULL, position INTEGER NOT NULL);
CREATE INDEX idx_user_profile_fields_user_id ON user_profile_fields (user_id);
CREATE TABLE ap_activities (id TEXT PRIMARY KEY, processed_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE webhook_tokens (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	token_hash TEXT NOT NULL, provider TEXT NOT NULL, label TEXT, created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
	last_used_at TIMESTAMPTZ);
CREATE INDEX idx_webhook_tokens_hash ON webhook_tokens (token_hash);
CREATE INDEX idx_webhook_tokens_user ON webhook_tokens (user_id);
CREATE TABLE watch_events (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	movie_id TEXT REFERENCES movies (id) ON DELETE SET NULL, title TEXT NOT NULL, year INTEGER,
	external_metadata_id TEXT, source TEXT NOT NULL, watched_at TIMESTAMPTZ NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending', created_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE INDEX idx_watch_events_user_status ON watch_events (user_id, status);
CREATE INDEX idx_watch_events_dedup ON watch_events (user_id, external_metadata_id, created_at);
CREATE TABLE wrap_up_records (id TEXT PRIMARY KEY NOT NULL, user_id TEXT, start_date DATE NOT NULL, end_date DATE NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending', report_json TEXT, error_message TEXT,
	created_at TIMESTAMPTZ NOT NULL DEFAULT now(), completed_at TIMESTAMPTZ);
CREATE INDEX idx_wrap_up_user ON wrap_up_records (user_id, start_date, end_date);
CREATE TABLE goals (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	year BIGINT NOT NULL, target_count BIGINT NOT NULL, goal_type TEXT NOT NULL DEFAULT 'movies',
	created_at TIMESTAMPTZ NOT NULL DEFAULT now(), UNIQUE (user_id, year));
CREATE INDEX idx_goals_user ON goals (user_id);
CREATE TABLE user_settings (user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	federate_goals BIGINT NOT NULL DEFAULT 0, federate_reviews BOOLEAN NOT NULL DEFAULT TRUE,
	federate_watchlist BOOLEAN NOT NULL DEFAULT TRUE);
CREATE TABLE remote_goals (ap_id TEXT PRIMARY KEY NOT NULL, actor_url TEXT NOT NULL, year BIGINT NOT NULL,
	target_count BIGINT NOT NULL, current_count BIGINT NOT NULL DEFAULT 0, received_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE INDEX idx_remote_goals_actor ON remote_goals (actor_url);
CREATE TABLE refresh_sessions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
	expires_at TIMESTAMPTZ NOT NULL, created_at TIMESTAMPTZ NOT NULL);
CREATE INDEX idx_refresh_sessions_token ON refresh_sessions (token);
CREATE INDEX idx_refresh_sessions_user_id ON refresh_sessions (user_id);
CREATE INDEX idx_refresh_sessions_expires_at ON refresh_sessions (expires_at);
CREATE TABLE event_queue (id BIGSERIAL PRIMARY KEY, event_type TEXT NOT NULL, payload TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
	created_at TIMESTAMPTZ NOT NULL DEFAULT now(), next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(), last_error TEXT);
CREATE INDEX idx_event_queue_poll ON event_queue (status, next_attempt_at);
`

// Fixture ids.
const (
	lgAlice    = "11111111-1111-4111-8111-111111111111"
	lgBob      = "22222222-2222-4222-8222-222222222222"
	lgMatrix   = "33333333-3333-4333-8333-333333333333"
	lgHandMade = "44444444-4444-4444-8444-444444444444"
	lgBase     = "https://diary.example"
	lgRemote   = "https://social.example/users/carol"
	lgRemote2  = "https://other.example/users/dave"
	lgShared   = "https://social.example/inbox" // carol's shared inbox; carol follows alice
)

var lgRemoteUser = uuid.NewSHA1(uuid.NameSpaceURL, []byte(lgRemote)).String()

// lgWebhookSecret is the webhook token the original showed bob once; it stored its SHA-256 hex.
const lgWebhookSecret = "3f1c2b9a0d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"

// The users' passwords, hashed by the original with argon2id (cheap parameters: the PHC string
// carries them).
const (
	lgAlicePassword = "correct horse battery staple"
	lgBobPassword   = "hunter2hunter2"
)

var lgHasher = auth.Hasher{Memory: 64, Time: 1, Threads: 1}

// legacyMigrations are the _sqlx_migrations rows sqlx records for the original's PostgreSQL
// migrations: the description is the file name after the version, the checksum the SHA-384 of
// the file (crates/adapters/postgres/migrations, crates/adapters/postgres-event-queue/migrations),
// the execution time in nanoseconds.
const legacyMigrations = `
INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES
	(1, 'initial', TRUE, '\x9a0eda3c407b79e4ea707e36ab791b8c870f6e590ce0c1ac7e6b6acf37568d62c28480cd5e7365cd49705aaff3b2deb5', 2500000),
	(2, 'import', TRUE, '\xf40f15976898d4cbcb79207222b7d7ce90d2338a061dec8c75442bcf12976b5c89cf94ba069b6902b184da39de90b99a', 2500000),
	(9, 'user profile', TRUE, '\x69e5ad1b6a5d24af708c9bea9f4b3695c60e14041da2bb06ea445f40a24214b30c5771092fea7bac0d3335da3ca797d0', 2500000),
	(10, 'ap remote actor avatar', TRUE, '\x7ba25975cb09becae0de1f2645f089de2204645c97a014a7c8c9bb915e6ebb40df695ae076e2cbb1ecefb26414a769b9', 2500000),
	(11, 'ap announces', TRUE, '\x169ad32e5630d2d58e9eabff22d70eff97440d486bceec5993043e15a1d1c14d69db1dc65f90ce069d2fbdf7485abfaa', 2500000),
	(12, 'blocked domains', TRUE, '\x2356ed23b885ec86f96b2e5c1e2b9e7a580b742bc04f6355e2ebb19fec58988557c8674a1bab2e13ba2cfe4a9791ab27', 2500000),
	(13, 'blocked actors', TRUE, '\x595176135f7b5bf6f2304c985ad51fa4d102ccba58caa85a436a1c921869e43dea9054f90ed3d0dc4cfcd640d52bb465', 2500000),
	(14, 'movie profiles', TRUE, '\x592041bf85d956fcfdb83c1b187963841436aba940a397d3f331d7287a192d06847eef835c90db1ea7344c2117044b49', 2500000),
	(15, 'search', TRUE, '\xffff33297beec1859535a064dad79dea151603ebf780616f08aa8b41853219736ac4d4b26f1a2c193d835f45cfd19249', 2500000),
	(16, 'watchlist', TRUE, '\x7568412f726a65ce275a9e152b1d9e4cf7cc96a28fddcb6efe2856b5cf8a1eeeff5ba0cf1232e80cc620248dead42878', 2500000),
	(17, 'ap remote watchlist', TRUE, '\xda27fd3b5d6bc34707b48889ab322bdc701fba6aeaf4eaae66a4463ba2ef78c4b1736649db76bdc2ef475aea7a6119ea', 2500000),
	(18, 'remote actor outbox url', TRUE, '\x7358cdb2dcbe1bdf1ef629c8a68990971b0a6b5d0fe0ac6672791478b0130c817b184f234572c325de2565cd9c9c03bd', 2500000),
	(19, 'profile extended', TRUE, '\x4b1683fb335dc7dc8fee4142694789365dd9a5241101787798ef761a8f3c1ac52478023e99495e7301dd193c4299483c', 2500000),
	(20, 'kap v03', TRUE, '\x339432374d968740e89eb11ab1e977647ba048c112d74dd6e05f2b61fba3b45e6ab02b402c31cbef51884fa8f11a09d1', 2500000),
	(21, 'user display name', TRUE, '\x41d7734b2f6d5248f5400a8d7ffbe61c82a8d9b1d5112406bfa33bacbb5a535c1b06453aa5787940d7951f9732f723bc', 2500000),
	(22, 'instance actor', TRUE, '\xc2defbf043aae9e2feb4f9b29b62c2f4576d9e7e29c15f9d4c1ba641d2781a203141218b531c949e3c909719b626d1f4', 2500000),
	(23, 'watch events', TRUE, '\xd3b3eed405a419a5aa168957747f3cdd8b0341044a0b6fc483010dd05d1b38f87b31dc0f9a179ad689cd1c675f470dd2', 2500000),
	(24, 'wrap up', TRUE, '\xbb1d987c3123d6f3f80e7889182c5b98a3fde967db83691c340adf0f7d709d23e6f5cda060f1a6f6c4991b498ad935d0', 2500000),
	(25, 'goals', TRUE, '\xf14aec542191b50fdc86e8c4406acde24a13c3617897e223ea155ea1f6964e3e6fde7cd9dfb1f21d54272595a59f787e', 2500000),
	(26, 'person enrichment', TRUE, '\xf6af8faf56558919f2ebde7aa8dbd9ead9fd10b9a880ae976e53834469aca2c32c5373b64b54fb1a26d404bde86e31fd', 2500000),
	(27, 'refresh sessions', TRUE, '\x53344ffe68c732915ede63cb5c3f075778affb5c33c78a5dc531aebf1c503d63adf672ae783773f8f36faac000eb22fc', 2500000),
	(28, 'federation privacy', TRUE, '\x1d3fe5da59ebcbc098cb13e40364872906f4e0ccff355af3e2bcd3e0a21d88f0522cd8e4674aa075385965dbf719acd8', 2500000),
	(29, 'watch medium', TRUE, '\x56f4f7b41a09f07211d7543204f0eac93b7bfb15afd9bc90df2654dae5be96b1e358b50e2190bf25739c5f0b1fd4b806', 2500000);
INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES
(100, 'event queue', TRUE, '\x357d102372497bd91f6bf8a9dbbb0bff7855b51792a4558f21dfdf20c3014c6d98a8c5e6310a9761ba0edd95b4e67d08', 2500000);
`

// legacyRows are rows in every table of legacySchema, as the original's PostgreSQL adapter writes
// them (TIMESTAMPTZ times, BIGINT years and ratings, booleans, text JSON), with outbox rows in
// every status and of every fate.
func legacyRows(t testing.TB) string {
	hash := func(pw string) string {
		h, err := lgHasher.Hash(pw)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	return legacyMigrations + `
INSERT INTO users (id, email, username, password_hash, created_at, role, bio, avatar_path, banner_path, also_known_as, display_name) VALUES
	('` + lgAlice + `', 'alice@example.org', 'alice', '` + hash(lgAlicePassword) + `', '2024-03-01T10:20:30.123456+00:00',
	 'admin', 'Films.', 'avatars/alice.webp', 'banners/alice.webp', 'https://old.example/users/alice', 'Alice A.'),
	('` + lgBob + `', 'bob@example.org', 'bob', '` + hash(lgBobPassword) + `', '2024-03-02 08:00:00+00',
	 'standard', NULL, NULL, NULL, NULL, NULL),
	('00000000-0000-4000-8000-000000000000', 'noreply@instance.invalid', 'instance', '!service-actor-no-login',
	 '2024-01-01 00:00:00+00', 'standard', NULL, NULL, NULL, NULL, NULL);
INSERT INTO user_profile_fields (id, user_id, name, value, position) VALUES
	('f2', '` + lgAlice + `', 'Pronouns', 'she/her', 1), ('f1', '` + lgAlice + `', 'Site', 'https://a.example', 0);
INSERT INTO user_settings (user_id, federate_goals, federate_reviews, federate_watchlist) VALUES ('` + lgAlice + `', 0, TRUE, FALSE);
INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path) VALUES
	('` + lgMatrix + `', 'tmdb:603', 'The Matrix', 1999, 'Lana Wachowski', 'posters/` + lgMatrix + `.webp'),
	('` + lgHandMade + `', NULL, 'Home Movie', 2020, NULL, NULL);
INSERT INTO movie_profiles (movie_id, tmdb_id, imdb_id, overview, tagline, runtime_minutes, budget_usd, revenue_usd,
	vote_average, vote_count, original_language, collection_name, enriched_at) VALUES
	('` + lgMatrix + `', 603, 'tt0133093', 'A hacker learns.', 'Free your mind', 136, 63000000, 463517383, 8.2, 26000, 'en',
	 'The Matrix Collection', '2024-03-03 09:00:00+00');
INSERT INTO movie_genres (movie_id, tmdb_id, name) VALUES ('` + lgMatrix + `', 28, 'Action'), ('` + lgMatrix + `', 878, 'Science Fiction');
INSERT INTO movie_keywords (movie_id, tmdb_id, name) VALUES ('` + lgMatrix + `', 310, 'artificial intelligence');
INSERT INTO persons (id, external_id, tmdb_person_id, name, known_for_department, profile_path, biography, birthday,
	deathday, place_of_birth, also_known_as, homepage, imdb_id, enriched_at) VALUES
	('55555555-5555-4555-8555-555555555555', 'tmdb:6384', 6384, 'Keanu Reeves', 'Acting', '/k.jpg', 'Actor.', '1964-09-02',
	 NULL, 'Beirut', '["K. Reeves"]', NULL, 'nm0000206', '2024-03-03 09:00:00+00'),
	('66666666-6666-4666-8666-666666666666', 'tmdb:9339', 9339, 'Lana Wachowski', 'Directing', NULL, NULL, NULL,
	 NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO movie_cast (movie_id, tmdb_person_id, name, character, billing_order, profile_path) VALUES
	('` + lgMatrix + `', 6384, 'Keanu Reeves', 'Neo', 0, '/k.jpg');
INSERT INTO movie_crew (movie_id, tmdb_person_id, name, job, department, profile_path) VALUES
	('` + lgMatrix + `', 9339, 'Lana Wachowski', 'Director', 'Directing', NULL);
INSERT INTO movies_search (movie_id, fts) VALUES ('` + lgMatrix + `', to_tsvector('english', 'The Matrix'));
INSERT INTO people_search (person_id, fts) VALUES ('55555555-5555-4555-8555-555555555555', to_tsvector('english', 'Keanu Reeves'));
INSERT INTO reviews (id, movie_id, user_id, rating, comment, watched_at, created_at, remote_actor_url, ap_id, watch_medium) VALUES
	('77777777-7777-4777-8777-777777777771', '` + lgMatrix + `', '` + lgAlice + `', 5, 'Whoa.', '2024-03-05 20:00:00+00',
	 '2024-03-05 22:10:00+00', NULL, NULL, 'cinema'),
	('77777777-7777-4777-8777-777777777772', '` + lgHandMade + `', '` + lgBob + `', 3, NULL, '2024-03-06 19:00:00+00',
	 '2024-03-06 21:00:00+00', NULL, NULL, NULL),
	('77777777-7777-4777-8777-777777777773', '` + lgMatrix + `', '` + lgRemoteUser + `', 4, 'Classic', '2024-02-01 18:00:00+00',
	 '2024-02-02 10:00:00+00', '` + lgRemote + `', 'https://social.example/reviews/1', NULL);
INSERT INTO watchlist_entries (id, user_id, movie_id, added_at) VALUES
	('88888888-8888-4888-8888-888888888888', '` + lgBob + `', '` + lgMatrix + `', '2024-03-04 12:00:00+00');
INSERT INTO ap_remote_actors (url, handle, inbox_url, shared_inbox_url, display_name, fetched_at, avatar_url, outbox_url,
	bio, banner_url, followers_url, following_url, also_known_as) VALUES
	('` + lgRemote + `', '@carol@social.example', 'https://social.example/users/carol/inbox', '` + lgShared + `',
	 'Carol', '2024-03-01 00:00:00+00', 'https://social.example/a.png', 'https://social.example/users/carol/outbox', 'Hi',
	 NULL, 'https://social.example/users/carol/followers', NULL, '[]'),
	('` + lgRemote2 + `', '@dave@other.example', 'https://other.example/users/dave/inbox', NULL, NULL, '2024-03-01 00:00:00+00',
	 NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO ap_following (local_user_id, remote_actor_url, created_at, follow_activity_id, status) VALUES
	('` + lgAlice + `', '` + lgRemote + `', '2024-03-01 01:00:00+00', '` + lgBase + `/activities/f1', 'accepted'),
	('` + lgAlice + `', '` + lgBase + `/users/` + lgBob + `', '2024-03-01 02:00:00+00', '', 'accepted'),
	('` + lgBob + `', '` + lgRemote2 + `', '2024-03-01 03:00:00+00', '` + lgBase + `/activities/f2', 'rejected');
INSERT INTO ap_followers (local_user_id, remote_actor_url, status, created_at, follow_activity_id) VALUES
	('` + lgAlice + `', '` + lgRemote + `', 'accepted', '2024-03-01 04:00:00+00', 'https://social.example/follows/9'),
	('` + lgBob + `', '` + lgBase + `/users/` + lgAlice + `', 'accepted', '2024-03-01 02:00:00+00', NULL),
	('` + lgBob + `', '` + lgRemote2 + `', 'pending', '2024-03-01 05:00:00+00', 'https://other.example/follows/3');
INSERT INTO ap_local_actors (user_id, public_key, private_key, created_at) VALUES
	('` + lgAlice + `', 'PUBLIC-A', 'PRIVATE-A', '2024-03-01 10:20:31+00'),
	('00000000-0000-4000-8000-000000000000', 'PUBLIC-I', 'PRIVATE-I', '2024-01-01 00:00:00+00');
INSERT INTO blocked_actors (local_user_id, remote_actor_url, blocked_at) VALUES
	('` + lgBob + `', 'https://spam.example/users/x', '2024-03-07T00:00:00+00:00');
INSERT INTO blocked_domains (domain, reason, blocked_at) VALUES ('Spam.Example', 'spam', '2024-03-07T00:00:01+00:00');
INSERT INTO ap_activities (id, processed_at) VALUES ('https://social.example/activities/1', '2024-03-01 04:00:00+00');
INSERT INTO ap_announces (id, object_url, actor_url, announced_at) VALUES
	('https://social.example/announces/1', '` + lgBase + `/reviews/r1', '` + lgRemote + `', '2024-03-06T00:00:00+00:00');
INSERT INTO ap_remote_watchlist_entries (ap_id, actor_url, movie_title, release_year, external_metadata_id, poster_url, added_at)
	VALUES ('https://social.example/watchlist/1', '` + lgRemote + `', 'Alien', 1979, 'tmdb:348', NULL, '2024-03-02 00:00:00+00');
INSERT INTO remote_goals (ap_id, actor_url, year, target_count, current_count) VALUES
	('https://social.example/goals/2024', '` + lgRemote + `', 2024, 100, 12);
INSERT INTO webhook_tokens (id, user_id, token_hash, provider, label, created_at, last_used_at) VALUES
	('99999999-9999-4999-8999-999999999999', '` + lgBob + `', '` + integration.HashToken(lgWebhookSecret) + `', 'jellyfin',
	 'living room', '2024-03-01 00:00:00+00', NULL),
	('99999999-9999-4999-8999-999999999998', '` + lgAlice + `', '` + integration.HashToken("plex-"+lgWebhookSecret) + `', 'plex',
	 '', '2024-03-02 00:00:00+00', '2024-03-09 12:00:00+00');
INSERT INTO watch_events (id, user_id, movie_id, title, year, external_metadata_id, source, watched_at, status, created_at) VALUES
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', '` + lgBob + `', '` + lgMatrix + `', 'The Matrix', 1999, 'tmdb:603', 'jellyfin',
	 '2024-03-04 21:00:00+00', 'pending', '2024-03-04 21:00:01+00'),
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaab', '` + lgAlice + `', NULL, ' LÉON' || chr(9), 1994, 'IMDB 0110413', 'plex',
	 '2024-03-08 22:00:00+00', 'pending', '2024-03-08 22:00:00+00'),
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaac', '` + lgBob + `', NULL, 'Heat', 1995, 'tt0113277',
	 'plex', '2024-03-02 20:00:00+00', 'dismissed', '2024-03-02 20:00:05+00');
INSERT INTO import_profiles (id, user_id, name, field_mappings, created_at) VALUES
	('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', '` + lgAlice + `', 'Letterboxd',
	 '[{"source_column":"Name","domain_field":"Title","transform":"Identity"},` +
		`{"source_column":"Rating","domain_field":"Rating","transform":{"RatingScale":2.0}},` +
		`{"source_column":"Date","domain_field":"WatchedAt","transform":{"DateFormat":"%d/%m/%Y"}},` +
		`{"source_column":"Year","domain_field":"ReleaseYear","transform":"Identity"}]', '2024-03-01 00:00:00+00'),
	('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbc', '` + lgBob + `', 'Broken', 'not json', '2024-03-03 00:00:00+00');
INSERT INTO import_sessions (id, user_id, parsed_data, created_at, expires_at) VALUES
	('cccccccc-cccc-4ccc-8ccc-cccccccccccc', '` + lgAlice + `', '[]', '2024-03-01 00:00:00+00', '2024-03-01 01:00:00+00');
INSERT INTO refresh_sessions (id, user_id, token, expires_at, created_at) VALUES
	('dddddddd-dddd-4ddd-8ddd-dddddddddddd', '` + lgAlice + `', 'plain-token', '2024-04-01 00:00:00+00', '2024-03-01 00:00:00+00');
INSERT INTO wrap_up_records (id, user_id, start_date, end_date, status, report_json, error_message, created_at, completed_at) VALUES
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1', '` + lgAlice + `', '2024-01-01', '2024-12-31', 'ready', '{"total_movies":2}', NULL,
	 '2025-01-01 00:00:00+00', '2025-01-01 00:01:00+00'),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee2', '` + lgAlice + `', '2024-01-01', '2024-12-31', 'ready', '{"total_movies":1}', NULL,
	 '2024-12-01 00:00:00+00', '2024-12-01 00:01:00+00'),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3', NULL, '2024-01-01', '2024-12-31', 'pending', NULL, NULL, '2025-01-02 00:00:00+00', NULL),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee4', '` + lgBob + `', '2023-01-01', '2023-12-31', 'failed', NULL, 'no reviews',
	 '2024-01-01 00:00:00+00', NULL);
INSERT INTO goals (id, user_id, year, target_count, goal_type, created_at) VALUES
	('ffffffff-ffff-4fff-8fff-ffffffffffff', '` + lgAlice + `', 2025, 50, 'movies', '2025-01-01 10:00:00+00');
` + legacyQueueRows
}

// legacyQueueRows are the outbox rows of a deployment on the database bus: one in every status,
// and one open row of every fate (a BackfillFollower its worker still owed carol; social events
// its server answered when it wrote them; one nothing consumes; one of a type it never wrote).
const legacyQueueRows = `
INSERT INTO event_queue (event_type, payload, status, attempts, created_at, next_attempt_at, last_error) VALUES
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'pending', 0, '2025-01-02 03:04:05+00', '2025-01-02 03:04:05+00', NULL),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'processing', 1, '2025-01-02 03:04:06+00', '2025-01-02 03:04:06+00', 'nack'),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'done', 0, '2025-01-02 03:04:07+00', '2025-01-02 03:04:07+00', NULL),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'dead_lettered', 5, '2025-01-02 03:04:08+00', '2025-01-02 03:04:08+00', 'max attempts reached'),
	('BackfillFollower', '{"type":"BackfillFollower","data":{"owner_user_id":"` + lgAlice + `","follower_inbox_url":"` + lgShared + `"}}',
		'pending', 0, '2025-01-03 00:00:00+00', '2025-01-03 00:00:00+00', NULL),
	('Unfollowed', '{"type":"Unfollowed","data":{"follower_id":"` + lgAlice + `","target_kind":"remote","target_id":"` + lgRemote2 + `"}}',
		'pending', 0, '2025-01-03 00:00:01+00', '2025-01-03 00:00:01+00', NULL),
	('FollowAccepted', '{"type":"FollowAccepted","data":{"owner_id":"` + lgAlice + `","requester_kind":"remote","requester_id":"` + lgRemote + `"}}',
		'processing', 1, '2025-01-03 00:00:02+00', '2025-01-03 00:00:02+00', NULL),
	('WatchEventIngested', '{"type":"WatchEventIngested","data":{"user_id":"` + lgBob + `","title":"Heat","source":"plex"}}',
		'pending', 0, '2025-01-03 00:00:03+00', '2025-01-03 00:00:03+00', NULL),
	('MysteryEvent', '{"type":"MysteryEvent"}', 'pending', 2, '2025-01-03 00:00:04+00', '2025-01-03 00:00:04+00', NULL);
`

// newLegacyDB creates a database as the original leaves it on the database bus and returns its
// URL.
func newLegacyDB(t testing.TB) string {
	t.Helper()
	url := pgtest.Empty(t)
	db := rawDB(t, url)
	if _, err := db.Exec(legacySchema + legacyRows(t)); err != nil {
		t.Fatalf("legacy fixture: %v", err)
	}
	return url
}

// newNATSLegacyDB creates a database as the original leaves it on NATS: its queue crate's
// migration (version 100, event_queue) runs only on the database bus.
func newNATSLegacyDB(t testing.TB) string {
	t.Helper()
	url := newLegacyDB(t)
	if _, err := rawDB(t, url).Exec(`DROP TABLE event_queue; DELETE FROM _sqlx_migrations WHERE version = 100`); err != nil {
		t.Fatal(err)
	}
	return url
}

// rawDB opens url for the test's own SQL, closed when the test ends.
func rawDB(t testing.TB, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rowsOf returns every row q selects, each as its columns' text ("<nil>" for NULL).
func rowsOf(t testing.TB, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "<nil>"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantRows fails t unless q selects exactly want, row by row.
func wantRows(t testing.TB, db *sql.DB, q string, want ...[]string) {
	t.Helper()
	got := rowsOf(t, db, q)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s\n got %q\nwant %q", strings.Join(strings.Fields(q), " "), got, want)
	}
}

// dumpDB is every schema, table and row of the database, as text.
func dumpDB(t testing.TB, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rowsOf(t, db, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE' ORDER BY 1, 2`) {
		name := r[0] + "." + r[1]
		fmt.Fprintf(&b, "%s\n%q\n", name, rowsOf(t, db, `SELECT t::text FROM `+r[0]+`."`+r[1]+`" t ORDER BY 1`))
	}
	return b.String()
}
