package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/federation"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/search"
)

// legacySchema is the original movies-diary's SQLite schema at its last version (sqlx versions
// 1–29 and 100), each table in its final shape, written from its migrations as a description of
// the file format, with its explicit indexes (some of whose names ours reuse).
const legacySchema = `
CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL,
	installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL, checksum BLOB NOT NULL,
	execution_time BIGINT NOT NULL);
CREATE TABLE movies (id TEXT PRIMARY KEY NOT NULL, external_metadata_id TEXT UNIQUE, title TEXT NOT NULL,
	release_year INTEGER NOT NULL, director TEXT, poster_path TEXT);
CREATE INDEX idx_movies_title_year ON movies (title, release_year);
CREATE TABLE reviews (id TEXT PRIMARY KEY NOT NULL, movie_id TEXT NOT NULL REFERENCES movies (id), user_id TEXT NOT NULL,
	rating INTEGER NOT NULL, comment TEXT, watched_at TEXT NOT NULL, created_at TEXT NOT NULL, remote_actor_url TEXT,
	ap_id TEXT, watch_medium TEXT);
CREATE INDEX idx_reviews_movie_id ON reviews (movie_id);
CREATE INDEX idx_reviews_watched_at ON reviews (watched_at);
CREATE UNIQUE INDEX idx_reviews_ap_id ON reviews (ap_id) WHERE ap_id IS NOT NULL;
CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, username TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL, created_at TEXT NOT NULL, role TEXT NOT NULL DEFAULT 'standard', bio TEXT,
	avatar_path TEXT, banner_path TEXT, also_known_as TEXT, display_name TEXT);
CREATE TABLE ap_followers (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', created_at TEXT NOT NULL,
	follow_activity_id TEXT, PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE ap_following (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, created_at TEXT NOT NULL, follow_activity_id TEXT,
	status TEXT NOT NULL DEFAULT 'pending', PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE ap_remote_actors (url TEXT PRIMARY KEY, handle TEXT NOT NULL, inbox_url TEXT NOT NULL,
	shared_inbox_url TEXT, display_name TEXT, fetched_at TEXT NOT NULL, avatar_url TEXT, outbox_url TEXT, bio TEXT,
	banner_url TEXT, followers_url TEXT, following_url TEXT, also_known_as TEXT);
CREATE TABLE ap_local_actors (user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	public_key TEXT NOT NULL, private_key TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE import_sessions (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, parsed_data TEXT NOT NULL,
	field_mappings TEXT, row_results TEXT, created_at TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE import_profiles (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL,
	field_mappings TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX idx_import_profiles_user_id ON import_profiles (user_id);
CREATE INDEX idx_import_sessions_user_id ON import_sessions (user_id);
CREATE INDEX idx_import_sessions_expires_at ON import_sessions (expires_at);
CREATE TABLE ap_announces (id TEXT PRIMARY KEY, object_url TEXT NOT NULL, actor_url TEXT NOT NULL,
	announced_at TEXT NOT NULL);
CREATE INDEX idx_ap_announces_object ON ap_announces (object_url);
CREATE TABLE blocked_domains (domain TEXT PRIMARY KEY, reason TEXT, blocked_at TEXT NOT NULL);
CREATE TABLE blocked_actors (local_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	remote_actor_url TEXT NOT NULL, blocked_at TEXT NOT NULL, PRIMARY KEY (local_user_id, remote_actor_url));
CREATE TABLE movie_profiles (movie_id TEXT PRIMARY KEY NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_id INTEGER NOT NULL, imdb_id TEXT, overview TEXT, tagline TEXT, runtime_minutes INTEGER, budget_usd INTEGER,
	revenue_usd INTEGER, vote_average REAL, vote_count INTEGER, original_language TEXT, collection_name TEXT,
	enriched_at TEXT NOT NULL);
CREATE TABLE movie_genres (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE, tmdb_id INTEGER NOT NULL,
	name TEXT NOT NULL, PRIMARY KEY (movie_id, tmdb_id));
CREATE TABLE movie_keywords (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_id INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (movie_id, tmdb_id));
CREATE TABLE movie_cast (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_person_id INTEGER NOT NULL, name TEXT NOT NULL, character TEXT NOT NULL, billing_order INTEGER NOT NULL,
	profile_path TEXT, PRIMARY KEY (movie_id, tmdb_person_id));
CREATE TABLE movie_crew (movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
	tmdb_person_id INTEGER NOT NULL, name TEXT NOT NULL, job TEXT NOT NULL, department TEXT NOT NULL,
	profile_path TEXT, PRIMARY KEY (movie_id, tmdb_person_id, job));
CREATE INDEX idx_movie_cast_person ON movie_cast (tmdb_person_id);
CREATE INDEX idx_movie_crew_person ON movie_crew (tmdb_person_id);
CREATE INDEX idx_movie_genres_name ON movie_genres (name);
CREATE INDEX idx_movie_keywords_name ON movie_keywords (name);
CREATE TABLE persons (id TEXT PRIMARY KEY, external_id TEXT NOT NULL UNIQUE, tmdb_person_id INTEGER UNIQUE,
	name TEXT NOT NULL, known_for_department TEXT, profile_path TEXT, biography TEXT, birthday TEXT, deathday TEXT,
	place_of_birth TEXT, also_known_as TEXT, homepage TEXT, imdb_id TEXT, enriched_at TEXT);
CREATE INDEX idx_persons_external ON persons (external_id);
CREATE INDEX idx_persons_tmdb_id ON persons (tmdb_person_id);
CREATE VIRTUAL TABLE movies_fts USING fts5(movie_id UNINDEXED, title, director, overview, genres, keywords,
	cast_names, crew_names, release_year UNINDEXED, language UNINDEXED);
CREATE VIRTUAL TABLE people_fts USING fts5(person_id UNINDEXED, name, known_for_department UNINDEXED);
CREATE TABLE watchlist_entries (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE, added_at TEXT NOT NULL, UNIQUE (user_id, movie_id));
CREATE INDEX idx_watchlist_user ON watchlist_entries (user_id, added_at DESC);
CREATE TABLE ap_remote_watchlist_entries (ap_id TEXT PRIMARY KEY NOT NULL, actor_url TEXT NOT NULL,
	movie_title TEXT NOT NULL, release_year INTEGER NOT NULL, external_metadata_id TEXT, poster_url TEXT,
	added_at TEXT NOT NULL);
CREATE INDEX idx_remote_watchlist_actor ON ap_remote_watchlist_entries (actor_url);
CREATE TABLE user_profile_fields (id TEXT NOT NULL PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name TEXT NOT NULL, value TEXT NOT NULL, position INTEGER NOT NULL);
CREATE INDEX idx_user_profile_fields_user_id ON user_profile_fields (user_id);
CREATE TABLE ap_activities (id TEXT PRIMARY KEY, processed_at TEXT NOT NULL);
CREATE TABLE webhook_tokens (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	token_hash TEXT NOT NULL, provider TEXT NOT NULL, label TEXT, created_at TEXT NOT NULL, last_used_at TEXT);
CREATE INDEX idx_webhook_tokens_hash ON webhook_tokens (token_hash);
CREATE INDEX idx_webhook_tokens_user ON webhook_tokens (user_id);
CREATE TABLE watch_events (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	movie_id TEXT REFERENCES movies (id) ON DELETE SET NULL, title TEXT NOT NULL, year INTEGER,
	external_metadata_id TEXT, source TEXT NOT NULL, watched_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending',
	created_at TEXT NOT NULL);
CREATE INDEX idx_watch_events_user_status ON watch_events (user_id, status);
CREATE INDEX idx_watch_events_dedup ON watch_events (user_id, external_metadata_id, created_at);
CREATE TABLE wrap_up_records (id TEXT PRIMARY KEY NOT NULL, user_id TEXT, start_date TEXT NOT NULL, end_date TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending', report_json TEXT, error_message TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')), completed_at TEXT);
CREATE INDEX idx_wrap_up_user ON wrap_up_records (user_id, start_date, end_date);
CREATE TABLE goals (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	year INTEGER NOT NULL, target_count INTEGER NOT NULL, goal_type TEXT NOT NULL DEFAULT 'movies',
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')), UNIQUE (user_id, year));
CREATE INDEX idx_goals_user ON goals (user_id);
CREATE TABLE user_settings (user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	federate_goals INTEGER NOT NULL DEFAULT 0, federate_reviews BOOLEAN NOT NULL DEFAULT TRUE,
	federate_watchlist BOOLEAN NOT NULL DEFAULT TRUE);
CREATE TABLE remote_goals (ap_id TEXT PRIMARY KEY NOT NULL, actor_url TEXT NOT NULL, year INTEGER NOT NULL,
	target_count INTEGER NOT NULL, current_count INTEGER NOT NULL DEFAULT 0,
	received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')));
CREATE INDEX idx_remote_goals_actor ON remote_goals (actor_url);
CREATE TABLE refresh_sessions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
	expires_at TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX idx_refresh_sessions_token ON refresh_sessions (token);
CREATE INDEX idx_refresh_sessions_user_id ON refresh_sessions (user_id);
CREATE INDEX idx_refresh_sessions_expires_at ON refresh_sessions (expires_at);
CREATE TABLE event_queue (id INTEGER PRIMARY KEY AUTOINCREMENT, event_type TEXT NOT NULL, payload TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	next_attempt_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), last_error TEXT);
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
)

var lgRemoteUser = uuid.NewSHA1(uuid.NameSpaceURL, []byte(lgRemote)).String()

// lgWebhookSecret is the webhook token the original showed bob once; it stored its SHA-256 hex.
const lgWebhookSecret = "3f1c2b9a0d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"

// legacyRows are rows in every table of legacySchema, as the original writes them. The
// _sqlx_migrations rows are the ones sqlx records: the description is the file name after the
// version, the checksum the SHA-384 of the migration file (crates/adapters/sqlite/migrations,
// crates/adapters/sqlite-event-queue/migrations), the execution time in nanoseconds.
var legacyRows = `
INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES
	(1, 'initial', 1, x'8e739cff6e02fed257c86b7fe409eb07c10ba99475a638b4e19840d82d6841c73420c6c4e1328b5ec29df785eac3062f', 2500000),
	(2, 'users', 1, x'bb37ade7421737c25370b6332e3a1433cc26752a6362ffb3fc96366fc4bd93ef065e8c0167742f869b0cdbcd58f108fd', 2500000),
	(3, 'activitypub', 1, x'760c99dcd559ecbd4ad0fc0a9daedaca621fd46627c94f2a4f0d5ef9586ab00cbfe17dafc062cfcdab8475580e15b461', 2500000),
	(4, 'username', 1, x'b91289d7629799bcf618b6034702468e914a29b25410d5c2a76febae306cdfbae0e257ba646eecb1f2e79b419758c996', 2500000),
	(5, 'activitypub v2', 1, x'15e7ef4ef0209c042dab96c05c59b07e7b31013f7e66944c4b7668272381e79317e141bbd81aa5fbebb976eae967a0ac', 2500000),
	(6, 'follower activity id', 1, x'39e160883c51d281e8dd1ba9eaa6ab10da96e9f6f8c8fec29c92a8aebc51bd83132e3db2d05603097d2c742eb8c5e41a', 2500000),
	(7, 'user role', 1, x'6b1ac746a418ce21c53f6da4d6b6785b672f0022f5330d2a120c33932151b20f8f3bd8bb1b2a9f21f801d7091c926a3b', 2500000),
	(8, 'import', 1, x'f14ed60c9d5921b92a7fbac1576df1f548fab34a28326777c689ed32b6125fac7e6192771dc67d3f036d299a7f6236e6', 2500000),
	(9, 'user profile', 1, x'69e5ad1b6a5d24af708c9bea9f4b3695c60e14041da2bb06ea445f40a24214b30c5771092fea7bac0d3335da3ca797d0', 2500000),
	(10, 'ap remote actor avatar', 1, x'7ba25975cb09becae0de1f2645f089de2204645c97a014a7c8c9bb915e6ebb40df695ae076e2cbb1ecefb26414a769b9', 2500000),
	(11, 'ap announces', 1, x'169ad32e5630d2d58e9eabff22d70eff97440d486bceec5993043e15a1d1c14d69db1dc65f90ce069d2fbdf7485abfaa', 2500000),
	(12, 'blocked domains', 1, x'2356ed23b885ec86f96b2e5c1e2b9e7a580b742bc04f6355e2ebb19fec58988557c8674a1bab2e13ba2cfe4a9791ab27', 2500000),
	(13, 'blocked actors', 1, x'595176135f7b5bf6f2304c985ad51fa4d102ccba58caa85a436a1c921869e43dea9054f90ed3d0dc4cfcd640d52bb465', 2500000),
	(14, 'movie profiles', 1, x'2871a6b456820eb45cab85fedbf9ff9e264d7f7e569ca6a114be6d1fbfd3a42590650b9823aa00a7abae944b4fd8ebf6', 2500000),
	(15, 'search', 1, x'cc66fd300934364a20866adfacdcf4dec65d7011f159a2c16fd6303f3ddbab331684189ec4cc4ffc62ce6e85d4a42721', 2500000),
	(16, 'watchlist', 1, x'347b77fbf9ddffb17950af66c0b9dc485a38d4f9e6bfecafb0f933036ddf0599381848c7635add29f4dcf3055c4acfbe', 2500000),
	(17, 'ap remote watchlist', 1, x'bf5c1e3591a407ca8368aee41d6cf7d842fe83310653b43747c12f2639d35c6f1e612fdd6739043a8fe226f0132d1b0d', 2500000),
	(18, 'remote actor outbox url', 1, x'7358cdb2dcbe1bdf1ef629c8a68990971b0a6b5d0fe0ac6672791478b0130c817b184f234572c325de2565cd9c9c03bd', 2500000),
	(19, 'profile extended', 1, x'baf7fa0f56e7757ac2f8d52b563902cb77126803304c3bae35468f9b48b7f735db2c8d4351ecddc856916ebe393e1bd6', 2500000),
	(20, 'kap v03', 1, x'875e8181058bbb455c6d2d7e3fea459dc24d500f5c16746eed46d696bbe3d2d07008fb03a29fa3827bf490496902b3cf', 2500000),
	(21, 'user display name', 1, x'745da33dbb2dd0d2e9121756d2d00d23dae5307396063e300e52203c40a21fb51dead0047c901b8a6248098e685e45f3', 2500000),
	(22, 'instance actor', 1, x'947e5f3428691ff26e475825cbfe22976fbba719c0f4547b7d525dcd042b108464a8a75f1f90392189520e94d7031dda', 2500000),
	(23, 'watch events', 1, x'947a36bfad46b3068ab91fcc8a04a24d7abcbcf78340dd3cb4b24134db7c62550d2c9ad017a95c1fc12d362d93ea70af', 2500000),
	(24, 'wrap up', 1, x'b5156f76de0b4903521b19a3de798eeb1f93193c21cca69ac79b6945c78c9400ad1e2a4c94d16481c444d7d2579df8d9', 2500000),
	(25, 'goals', 1, x'113bfb1c5d3194ccde7b6c1ede6a16d956decfac6bb3d5aa96d70f7e460a9af579025373787fab8482c9f0bdcd3d5ab8', 2500000),
	(26, 'person enrichment', 1, x'60a5b8d024712b1f2fa0f31dbb4d4079a1bfe562f77e544f5877d5251b829b30fbdbc4b1f8d36b84cea488b07f94df3a', 2500000),
	(27, 'refresh sessions', 1, x'1e5069f7240dda6d2bb8160e6997ff8fd6f6993d0d907ab30cc7de5b774072b4fc46572cb83c038ca3a2baa124048c84', 2500000),
	(28, 'federation privacy', 1, x'1d3fe5da59ebcbc098cb13e40364872906f4e0ccff355af3e2bcd3e0a21d88f0522cd8e4674aa075385965dbf719acd8', 2500000),
	(29, 'watch medium', 1, x'56f4f7b41a09f07211d7543204f0eac93b7bfb15afd9bc90df2654dae5be96b1e358b50e2190bf25739c5f0b1fd4b806', 2500000);
INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES
(100, 'event queue', 1, x'310adc9abf0cc2f8e9edab33168d009d64228ff5bd8d2a14185513699ebb782606a1eea8fee6ec6af65d72396153f13f', 2500000);
INSERT INTO users (id, email, username, password_hash, created_at, role, bio, avatar_path, banner_path, also_known_as, display_name) VALUES
	('` + lgAlice + `', 'alice@example.org', 'alice', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA', '2024-03-01T10:20:30.123456789+00:00',
	 'admin', 'Films.', 'avatars/alice.webp', 'banners/alice.webp', 'https://old.example/users/alice', 'Alice A.'),
	('` + lgBob + `', 'bob@example.org', 'bob', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', '2024-03-02 08:00:00',
	 'standard', NULL, NULL, NULL, NULL, NULL),
	('00000000-0000-4000-8000-000000000000', 'noreply@instance.invalid', 'instance', '!service-actor-no-login', '2024-01-01 00:00:00',
	 'standard', NULL, NULL, NULL, NULL, NULL);
INSERT INTO user_profile_fields (id, user_id, name, value, position) VALUES
	('f2', '` + lgAlice + `', 'Pronouns', 'she/her', 1), ('f1', '` + lgAlice + `', 'Site', 'https://a.example', 0);
INSERT INTO user_settings (user_id, federate_goals, federate_reviews, federate_watchlist) VALUES ('` + lgAlice + `', 0, TRUE, FALSE);
INSERT INTO movies (id, external_metadata_id, title, release_year, director, poster_path) VALUES
	('` + lgMatrix + `', 'tmdb:603', 'The Matrix', 1999, 'Lana Wachowski', 'posters/` + lgMatrix + `.webp'),
	('` + lgHandMade + `', NULL, 'Home Movie', 2020, NULL, NULL);
INSERT INTO movie_profiles (movie_id, tmdb_id, imdb_id, overview, tagline, runtime_minutes, budget_usd, revenue_usd,
	vote_average, vote_count, original_language, collection_name, enriched_at) VALUES
	('` + lgMatrix + `', 603, 'tt0133093', 'A hacker learns.', 'Free your mind', 136, 63000000, 463517383, 8.2, 26000, 'en',
	 'The Matrix Collection', '2024-03-03 09:00:00');
INSERT INTO movie_genres (movie_id, tmdb_id, name) VALUES ('` + lgMatrix + `', 28, 'Action'), ('` + lgMatrix + `', 878, 'Science Fiction');
INSERT INTO movie_keywords (movie_id, tmdb_id, name) VALUES ('` + lgMatrix + `', 310, 'artificial intelligence');
INSERT INTO persons (id, external_id, tmdb_person_id, name, known_for_department, profile_path, biography, birthday,
	deathday, place_of_birth, also_known_as, homepage, imdb_id, enriched_at) VALUES
	('55555555-5555-4555-8555-555555555555', 'tmdb:6384', 6384, 'Keanu Reeves', 'Acting', '/k.jpg', 'Actor.', '1964-09-02',
	 NULL, 'Beirut', '["K. Reeves"]', NULL, 'nm0000206', '2024-03-03 09:00:00'),
	('66666666-6666-4666-8666-666666666666', 'tmdb:9339', 9339, 'Lana Wachowski', 'Directing', NULL, NULL, NULL,
	 NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO movie_cast (movie_id, tmdb_person_id, name, character, billing_order, profile_path) VALUES
	('` + lgMatrix + `', 6384, 'Keanu Reeves', 'Neo', 0, '/k.jpg');
INSERT INTO movie_crew (movie_id, tmdb_person_id, name, job, department, profile_path) VALUES
	('` + lgMatrix + `', 9339, 'Lana Wachowski', 'Director', 'Directing', NULL);
INSERT INTO movies_fts (movie_id, title) VALUES ('` + lgMatrix + `', 'The Matrix');
INSERT INTO people_fts (person_id, name) VALUES ('55555555-5555-4555-8555-555555555555', 'Keanu Reeves');
INSERT INTO reviews (id, movie_id, user_id, rating, comment, watched_at, created_at, remote_actor_url, ap_id, watch_medium) VALUES
	('77777777-7777-4777-8777-777777777771', '` + lgMatrix + `', '` + lgAlice + `', 5, 'Whoa.', '2024-03-05 20:00:00',
	 '2024-03-05 22:10:00', NULL, NULL, 'cinema'),
	('77777777-7777-4777-8777-777777777772', '` + lgHandMade + `', '` + lgBob + `', 3, NULL, '2024-03-06 19:00:00',
	 '2024-03-06 21:00:00', NULL, NULL, NULL),
	('77777777-7777-4777-8777-777777777773', '` + lgMatrix + `', '` + lgRemoteUser + `', 4, 'Classic', '2024-02-01 18:00:00',
	 '2024-02-02 10:00:00', '` + lgRemote + `', 'https://social.example/reviews/1', NULL);
INSERT INTO watchlist_entries (id, user_id, movie_id, added_at) VALUES
	('88888888-8888-4888-8888-888888888888', '` + lgBob + `', '` + lgMatrix + `', '2024-03-04 12:00:00');
INSERT INTO ap_remote_actors (url, handle, inbox_url, shared_inbox_url, display_name, fetched_at, avatar_url, outbox_url,
	bio, banner_url, followers_url, following_url, also_known_as) VALUES
	('` + lgRemote + `', '@carol@social.example', 'https://social.example/users/carol/inbox', 'https://social.example/inbox',
	 'Carol', '2024-03-01 00:00:00', 'https://social.example/a.png', 'https://social.example/users/carol/outbox', 'Hi',
	 NULL, 'https://social.example/users/carol/followers', NULL, '[]'),
	('` + lgRemote2 + `', '@dave@other.example', 'https://other.example/users/dave/inbox', NULL, NULL, '2024-03-01 00:00:00',
	 NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO ap_following (local_user_id, remote_actor_url, created_at, follow_activity_id, status) VALUES
	('` + lgAlice + `', '` + lgRemote + `', '2024-03-01 01:00:00', '` + lgBase + `/activities/f1', 'accepted'),
	('` + lgAlice + `', '` + lgBase + `/users/` + lgBob + `', '2024-03-01 02:00:00', '', 'accepted'),
	('` + lgBob + `', '` + lgRemote2 + `', '2024-03-01 03:00:00', '` + lgBase + `/activities/f2', 'rejected');
INSERT INTO ap_followers (local_user_id, remote_actor_url, status, created_at, follow_activity_id) VALUES
	('` + lgAlice + `', '` + lgRemote + `', 'accepted', '2024-03-01 04:00:00', 'https://social.example/follows/9'),
	('` + lgBob + `', '` + lgBase + `/users/` + lgAlice + `', 'accepted', '2024-03-01 02:00:00', NULL),
	('` + lgBob + `', '` + lgRemote2 + `', 'pending', '2024-03-01 05:00:00', 'https://other.example/follows/3');
INSERT INTO ap_local_actors (user_id, public_key, private_key, created_at) VALUES
	('` + lgAlice + `', 'PUBLIC-A', 'PRIVATE-A', '2024-03-01 10:20:31'),
	('00000000-0000-4000-8000-000000000000', 'PUBLIC-I', 'PRIVATE-I', '2024-01-01 00:00:00');
INSERT INTO blocked_actors (local_user_id, remote_actor_url, blocked_at) VALUES
	('` + lgBob + `', 'https://spam.example/users/x', '2024-03-07 00:00:00');
INSERT INTO blocked_domains (domain, reason, blocked_at) VALUES ('Spam.Example', 'spam', '2024-03-07 00:00:01');
INSERT INTO ap_activities (id, processed_at) VALUES ('https://social.example/activities/1', '2024-03-01 04:00:00');
INSERT INTO ap_announces (id, object_url, actor_url, announced_at) VALUES
	('https://social.example/announces/1', '` + lgBase + `/reviews/r1', '` + lgRemote + `', '2024-03-06 00:00:00');
INSERT INTO ap_remote_watchlist_entries (ap_id, actor_url, movie_title, release_year, external_metadata_id, poster_url, added_at)
	VALUES ('https://social.example/watchlist/1', '` + lgRemote + `', 'Alien', 1979, 'tmdb:348', NULL, '2024-03-02 00:00:00');
INSERT INTO remote_goals (ap_id, actor_url, year, target_count, current_count) VALUES
	('https://social.example/goals/2024', '` + lgRemote + `', 2024, 100, 12);
INSERT INTO webhook_tokens (id, user_id, token_hash, provider, label, created_at, last_used_at) VALUES
	('99999999-9999-4999-8999-999999999999', '` + lgBob + `', '` + integration.HashToken(lgWebhookSecret) + `', 'jellyfin',
	 'living room', '2024-03-01 00:00:00', NULL),
	('99999999-9999-4999-8999-999999999998', '` + lgAlice + `', '` + integration.HashToken("plex-"+lgWebhookSecret) + `', 'plex',
	 '', '2024-03-02 00:00:00', '2024-03-09 12:00:00');
INSERT INTO watch_events (id, user_id, movie_id, title, year, external_metadata_id, source, watched_at, status, created_at) VALUES
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', '` + lgBob + `', '` + lgMatrix + `', 'The Matrix', 1999, 'tmdb:603', 'jellyfin',
	 '2024-03-04 21:00:00', 'pending', '2024-03-04 21:00:01'),
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaab', '` + lgAlice + `', NULL, ' LÉON' || char(9), 1994, 'IMDB 0110413', 'plex',
	 '2024-03-08 22:00:00', 'pending', '2024-03-08 22:00:00'),
	('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaac', '` + lgBob + `', '55555555-0000-4000-8000-000000000000', 'Heat', 1995, 'tt0113277',
	 'plex', '2024-03-02 20:00:00', 'dismissed', '2024-03-02 20:00:05');
INSERT INTO import_profiles (id, user_id, name, field_mappings, created_at) VALUES
	('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', '` + lgAlice + `', 'Letterboxd',
	 '[{"source_column":"Name","domain_field":"Title","transform":"Identity"},` +
	`{"source_column":"Rating","domain_field":"Rating","transform":{"RatingScale":2.0}},` +
	`{"source_column":"Date","domain_field":"WatchedAt","transform":{"DateFormat":"%d/%m/%Y"}},` +
	`{"source_column":"Year","domain_field":"ReleaseYear","transform":"Identity"}]', '2024-03-01 00:00:00'),
	('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbc', '` + lgBob + `', 'Broken', 'not json', '2024-03-03 00:00:00');
INSERT INTO import_sessions (id, user_id, parsed_data, created_at, expires_at) VALUES
	('cccccccc-cccc-4ccc-8ccc-cccccccccccc', '` + lgAlice + `', '[]', '2024-03-01 00:00:00', '2024-03-01 01:00:00');
INSERT INTO refresh_sessions (id, user_id, token, expires_at, created_at) VALUES
	('dddddddd-dddd-4ddd-8ddd-dddddddddddd', '` + lgAlice + `', 'plain-token', '2024-04-01 00:00:00', '2024-03-01 00:00:00');
INSERT INTO wrap_up_records (id, user_id, start_date, end_date, status, report_json, error_message, created_at, completed_at) VALUES
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1', '` + lgAlice + `', '2024-01-01', '2024-12-31', 'ready', '{"total_movies":2}', NULL,
	 '2025-01-01 00:00:00', '2025-01-01 00:01:00'),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee2', '` + lgAlice + `', '2024-01-01', '2024-12-31', 'ready', '{"total_movies":1}', NULL,
	 '2024-12-01 00:00:00', '2024-12-01 00:01:00'),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3', NULL, '2024-01-01', '2024-12-31', 'pending', NULL, NULL, '2025-01-02 00:00:00', NULL),
	('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee4', '` + lgBob + `', '2023-01-01', '2023-12-31', 'failed', NULL, 'no reviews',
	 '2024-01-01 00:00:00', NULL);
INSERT INTO goals (id, user_id, year, target_count, goal_type, created_at) VALUES
	('ffffffff-ffff-4fff-8fff-ffffffffffff', '` + lgAlice + `', 2025, 50, 'movies', '2025-01-01 10:00:00');
INSERT INTO event_queue (event_type, payload, status, attempts, created_at, next_attempt_at, last_error) VALUES
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'pending', 0, '2025-01-02T03:04:05Z', '2025-01-02T03:04:05Z', NULL),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'processing', 1, '2025-01-02T03:04:06Z', '2025-01-02T03:04:06Z', 'nack'),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'done', 0, '2025-01-02T03:04:07Z', '2025-01-02T03:04:07Z', NULL),
	('SearchReindexRequested', '{"type":"SearchReindexRequested"}', 'dead_lettered', 5, '2025-01-02T03:04:08Z', '2025-01-02T03:04:08Z', 'max attempts reached');
`

// newLegacyDB writes a database as the original leaves it (WAL mode, as it runs) and returns
// its path.
func newLegacyDB(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "movies.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(legacySchema + legacyRows); err != nil {
		t.Fatalf("legacy fixture: %v", err)
	}
	return path
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
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch x := (*v.(*any)).(type) {
			case nil:
				row[i] = "<nil>"
			case []byte:
				row[i] = string(x)
			default:
				row[i] = fmt.Sprint(x)
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

// newNATSLegacyDB writes a database as the original leaves it when it runs on NATS: its queue
// crate's migration (sqlx version 100, event_queue) runs only on the database bus, so there is
// neither the table nor its version.
func newNATSLegacyDB(t testing.TB) string {
	t.Helper()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE event_queue; DELETE FROM _sqlx_migrations WHERE version = 100`); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkAdopted checks every row the fixture's tables were carried to, and what was kept.
func checkAdopted(t testing.TB, path string) {
	t.Helper()
	checkAdoptedDeployment(t, path, false)
}

// checkAdoptedDeployment is checkAdopted for a deployment on the database bus or, with nats, on
// NATS (no event_queue: the outbox holds only the adoption's reindex request).
func checkAdoptedDeployment(t testing.TB, path string, nats bool) {
	t.Helper()
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	latest, err := LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT version, dirty FROM schema_migrations`, []string{fmt.Sprint(latest), "0"})
	if nats {
		adoptedAt := rowsOf(t, db, `SELECT created_at FROM event_queue WHERE id = 1`)[0][0]
		wantRows(t, db, `SELECT id, event_type, status, attempts, created_at, claimed_at, last_error FROM event_queue ORDER BY id`,
			[]string{"1", "SearchReindexRequested", "pending", "0", adoptedAt, "<nil>", "<nil>"})
	} else {
		checkAdoptedOutbox(t, db)
	}
	checkAdoptedTables(t, db)
}

// checkAdoptedOutbox checks the original's outbox rows, converted, and the adoption's own.
func checkAdoptedOutbox(t testing.TB, db *sql.DB) {
	t.Helper()
	adoptedAt := rowsOf(t, db, `SELECT created_at FROM event_queue WHERE id = 5`)[0][0]
	if at, _ := strconv.ParseInt(adoptedAt, 10, 64); time.Since(time.UnixMilli(at)) > time.Hour {
		t.Errorf("the adoption's reindex request is stamped %s, not now", adoptedAt)
	}
	// The outbox: every legacy row has its own random v4 event id; the stranded processing row
	// has a claim old enough to be taken over at once; times are Unix ms.
	wantRows(t, db, `SELECT id, status, attempts, created_at, next_attempt_at, claimed_at, last_error FROM event_queue ORDER BY id`,
		[]string{"1", "pending", "0", "1735787045000", "1735787045000", "<nil>", "<nil>"},
		[]string{"2", "processing", "1", "1735787046000", "1735787046000", "0", "nack"},
		[]string{"3", "done", "0", "1735787047000", "1735787047000", "<nil>", "<nil>"},
		[]string{"4", "dead_lettered", "5", "1735787048000", "1735787048000", "<nil>", "max attempts reached"},
		[]string{"5", "pending", "0", adoptedAt, adoptedAt, "<nil>", "<nil>"})
	// The adoption's own event: rebuild the search index (the original's was dropped).
	wantRows(t, db, `SELECT event_type, payload FROM event_queue WHERE id = 5`,
		[]string{"SearchReindexRequested", `{"type":"SearchReindexRequested"}`})
	seen := map[string]bool{}
	for _, r := range rowsOf(t, db, `SELECT event_id FROM event_queue WHERE id < 5`) {
		u, err := uuid.Parse(r[0])
		if err != nil || u.Version() != 4 || seen[r[0]] {
			t.Errorf("legacy row's event id %q: not a fresh v4 UUID (%v)", r[0], err)
		}
		seen[r[0]] = true
	}
}

// checkAdoptedTables checks every row the fixture's tables (but the outbox) were carried to, and
// what was kept.
func checkAdoptedTables(t testing.TB, db *sql.DB) {
	t.Helper()
	wantRows(t, db, `SELECT id, username, email, password_hash, is_admin, display_name, bio, created_at, avatar_key,
		banner_key, also_known_as, profile_fields FROM users ORDER BY username`,
		[]string{lgAlice, "alice", "alice@example.org", "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA", "1", "Alice A.",
			"Films.", "2024-03-01T10:20:30.123Z", "avatars/alice.webp", "banners/alice.webp", "https://old.example/users/alice",
			`[{"name":"Site","value":"https://a.example"},{"name":"Pronouns","value":"she/her"}]`},
		[]string{lgBob, "bob", "bob@example.org", "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", "0", "<nil>", "<nil>",
			"2024-03-02T08:00:00.000Z", "<nil>", "<nil>", "<nil>", "[]"})
	wantRows(t, db, `SELECT user_id, federate_reviews, federate_watchlist, federate_goals FROM user_settings`,
		[]string{lgAlice, "1", "0", "0"})
	wantRows(t, db, `SELECT id, external_metadata_id, title, release_year, director, poster_path, created_at, genres,
		runtime_minutes, original_language, overview, collection_name FROM movies ORDER BY title`,
		[]string{lgHandMade, "<nil>", "Home Movie", "2020", "<nil>", "<nil>", "2024-03-06T21:00:00.000Z", "[]", "<nil>",
			"<nil>", "<nil>", "<nil>"},
		[]string{lgMatrix, "tmdb:603", "The Matrix", "1999", "Lana Wachowski", "posters/" + lgMatrix + ".webp",
			"2024-02-02T10:00:00.000Z", `["Action","Science Fiction"]`, "136", "en", "A hacker learns.", "The Matrix Collection"})
	wantRows(t, db, `SELECT id, external_id, name, known_for_department, profile_path, biography, birthday, place_of_birth,
		imdb_id, enriched_at FROM people ORDER BY name`,
		[]string{"55555555-5555-4555-8555-555555555555", "tmdb:6384", "Keanu Reeves", "Acting", "/k.jpg", "Actor.",
			"1964-09-02", "Beirut", "nm0000206", "2024-03-03T09:00:00.000Z"},
		[]string{"66666666-6666-4666-8666-666666666666", "tmdb:9339", "Lana Wachowski", "Directing", "<nil>", "<nil>",
			"<nil>", "<nil>", "<nil>", "<nil>"})
	wantRows(t, db, `SELECT movie_id, person_id, kind, role, department, billing_order FROM movie_credits ORDER BY kind`,
		[]string{lgMatrix, "55555555-5555-4555-8555-555555555555", "cast", "Neo", "<nil>", "0"},
		[]string{lgMatrix, "66666666-6666-4666-8666-666666666666", "crew", "Director", "Directing", "<nil>"})
	wantRows(t, db, `SELECT id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at, updated_at,
		remote_actor_url, ap_id FROM reviews ORDER BY remote_actor_url IS NOT NULL, id`,
		[]string{"77777777-7777-4777-8777-777777777771", lgAlice, lgMatrix, "5", "Whoa.", "cinema", "2024-03-05T20:00:00.000Z",
			"2024-03-05T22:10:00.000Z", "2024-03-05T22:10:00.000Z", "<nil>", "<nil>"},
		[]string{"77777777-7777-4777-8777-777777777772", lgBob, lgHandMade, "3", "<nil>", "<nil>", "2024-03-06T19:00:00.000Z",
			"2024-03-06T21:00:00.000Z", "2024-03-06T21:00:00.000Z", "<nil>", "<nil>"},
		// A remote review is re-keyed to the id our inbound path gives its object id.
		[]string{federation.RemoteReviewID("https://social.example/reviews/1").String(), lgRemoteUser, lgMatrix, "4",
			"Classic", "<nil>", "2024-02-01T18:00:00.000Z", "2024-02-02T10:00:00.000Z", "2024-02-02T10:00:00.000Z", lgRemote,
			"https://social.example/reviews/1"})
	wantRows(t, db, `SELECT user_id, movie_id, added_at FROM watchlist`, []string{lgBob, lgMatrix, "2024-03-04T12:00:00.000Z"})
	wantRows(t, db, `SELECT follower_kind, follower_id, target_kind, target_id, status, created_at FROM follows
		ORDER BY follower_id, target_id`,
		[]string{"local", lgAlice, "local", lgBob, "accepted", "2024-03-01T02:00:00.000Z"},
		[]string{"local", lgAlice, "remote", lgRemote, "accepted", "2024-03-01T01:00:00.000Z"},
		[]string{"remote", lgRemote2, "local", lgBob, "pending", "2024-03-01T05:00:00.000Z"},
		[]string{"remote", lgRemote, "local", lgAlice, "accepted", "2024-03-01T04:00:00.000Z"})
	wantRows(t, db, `SELECT blocker_id, target_kind, target_id, created_at FROM blocks`,
		[]string{lgBob, "remote", "https://spam.example/users/x", "2024-03-07T00:00:00.000Z"})
	wantRows(t, db, `SELECT domain, reason, blocked_at FROM domain_blocks`,
		[]string{"spam.example", "spam", "2024-03-07T00:00:01.000Z"})
	wantRows(t, db, `SELECT url, inbox, shared_inbox, outbox, handle, display_name, key_id, public_key, fetched_at
		FROM remote_actors ORDER BY url`,
		[]string{lgRemote2, "https://other.example/users/dave/inbox", "<nil>", "<nil>", "@dave@other.example", "<nil>", "", "", "0"},
		[]string{lgRemote, "https://social.example/users/carol/inbox", "https://social.example/inbox",
			"https://social.example/users/carol/outbox", "@carol@social.example", "Carol", "", "", "0"})
	wantRows(t, db, `SELECT owner_id, private_key_pem, public_key_pem, created_at FROM actor_keys ORDER BY owner_id`,
		[]string{"00000000-0000-4000-8000-000000000000", "PRIVATE-I", "PUBLIC-I", "1704067200000"},
		[]string{lgAlice, "PRIVATE-A", "PUBLIC-A", "1709288431000"})
	wantRows(t, db, `SELECT activity_id, actor_url, received_at FROM inbox_activities`,
		[]string{"https://social.example/activities/1", "", "1709265600000"})
	wantRows(t, db, `SELECT id, user_id, status, start_date, end_date, created_at, completed_at, error_message, report
		FROM wrapups ORDER BY id`,
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1", lgAlice, "Ready", "2024-01-01", "2024-12-31",
			"2025-01-01T00:00:00.000Z", "2025-01-01T00:01:00.000Z", "<nil>", `{"total_movies":2}`},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee2", lgAlice, "Failed", "2024-01-01", "2024-12-31",
			"2024-12-01T00:00:00.000Z", "2024-12-01T00:01:00.000Z",
			"superseded when adopted from movies-diary: another live wrap-up covers the same range", `{"total_movies":1}`},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3", "<nil>", "Pending", "2024-01-01", "2024-12-31",
			"2025-01-02T00:00:00.000Z", "<nil>", "<nil>", "<nil>"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee4", lgBob, "Failed", "2023-01-01", "2023-12-31",
			"2024-01-01T00:00:00.000Z", "<nil>", "no reviews", "<nil>"})
	wantRows(t, db, `SELECT id, user_id, year, target_count, created_at, updated_at FROM goals`,
		[]string{"ffffffff-ffff-4fff-8fff-ffffffffffff", lgAlice, "2025", "50", "2025-01-01T10:00:00.000Z", "2025-01-01T10:00:00.000Z"})
	wantRows(t, db, `SELECT count(*) FROM refresh_sessions`, []string{"0"})

	// Webhook tokens, watch events and import profiles, carried by migrations 0185–0187. The
	// token hashes are the original's, so its tokens still authenticate.
	wantRows(t, db, `SELECT id, user_id, provider, label, token_hash, auto_confirm_rating, created_at, last_used_at
		FROM webhook_tokens ORDER BY id`,
		[]string{"99999999-9999-4999-8999-999999999998", lgAlice, "plex", "<nil>", integration.HashToken("plex-" + lgWebhookSecret),
			"<nil>", "1709337600000", "1709985600000"},
		[]string{"99999999-9999-4999-8999-999999999999", lgBob, "jellyfin", "living room", integration.HashToken(lgWebhookSecret),
			"<nil>", "1709251200000", "<nil>"})
	// The pending events are the queue again; the dismissed one stays closed (closed_at is the
	// original's created_at); an external id that is not tmdb:N or tt… is dropped and the key
	// falls back to the title, folded in Go ("léon", not SQLite's ASCII-only "lÉon").
	wantRows(t, db, `SELECT id, user_id, source, title, year, external_id, movie_id, dedup_key, status, review_id, watched_at,
		closed_at FROM watch_events ORDER BY id`,
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", lgBob, "jellyfin", "The Matrix", "1999", "tmdb:603", lgMatrix, "tmdb:603",
			"pending", "<nil>", "1709586000000", "<nil>"},
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaab", lgAlice, "plex", " LÉON\t", "1994", "<nil>", "<nil>", "title:léon|1994",
			"pending", "<nil>", "1709935200000", "<nil>"},
		[]string{"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaac", lgBob, "plex", "Heat", "1995", "tt0113277", "<nil>", "tt0113277",
			"dismissed", "<nil>", "1709409600000", "1709409605000"})
	// The original's serde mappings become ours; a profile the original could not read keeps
	// its name with no mappings.
	wantRows(t, db, `SELECT id, user_id, name, mappings, created_at FROM import_profiles ORDER BY id`,
		[]string{"bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", lgAlice, "Letterboxd",
			`[{"source_column":"Name","domain_field":"title"},{"source_column":"Rating","domain_field":"rating","rating_scale":2.0},` +
				`{"source_column":"Date","domain_field":"watched_at","date_format":"%d/%m/%Y"},` +
				`{"source_column":"Year","domain_field":"release_year"}]`,
			"2024-03-01T00:00:00.000Z"},
		[]string{"bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbc", lgBob, "Broken", "[]", "2024-03-03T00:00:00.000Z"})

	// What our schema has no place for yet stays, as plain copies; what was carried is gone.
	wantRows(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'legacy%' ORDER BY name`,
		[]string{"legacy__sqlx_migrations"}, []string{"legacy_ap_announces"}, []string{"legacy_ap_followers"},
		[]string{"legacy_ap_following"}, []string{"legacy_ap_remote_actors"}, []string{"legacy_ap_remote_watchlist_entries"},
		[]string{"legacy_remote_goals"})
	wantRows(t, db, `SELECT local_user_id, remote_actor_url, follow_activity_id, status FROM legacy_ap_following ORDER BY created_at`,
		[]string{lgAlice, lgRemote, lgBase + "/activities/f1", "accepted"}, []string{lgAlice, lgBase + "/users/" + lgBob, "", "accepted"},
		[]string{lgBob, lgRemote2, lgBase + "/activities/f2", "rejected"})
	wantRows(t, db, `SELECT count(*) FROM legacy_ap_announces`, []string{"1"})
	wantRows(t, db, `SELECT count(*) FROM legacy_remote_goals`, []string{"1"})
	wantRows(t, db, `SELECT count(*) FROM legacy_ap_remote_watchlist_entries`, []string{"1"})
	// The profile document, as our enrichment writes it, from the original's profile tables.
	wantRows(t, db, `SELECT movie_id, profile, enriched_at FROM movie_profiles`,
		[]string{lgMatrix, `{"tmdb_id":603,"imdb_id":"tt0133093","overview":"A hacker learns.","tagline":"Free your mind",` +
			`"runtime_minutes":136,"budget_usd":63000000,"revenue_usd":463517383,"vote_average":8.2,"vote_count":26000,` +
			`"original_language":"en","collection_name":"The Matrix Collection",` +
			`"genres":[{"tmdb_id":28,"name":"Action"},{"tmdb_id":878,"name":"Science Fiction"}],` +
			`"keywords":[{"tmdb_id":310,"name":"artificial intelligence"}],` +
			`"cast":[{"person_id":"55555555-5555-4555-8555-555555555555","tmdb_person_id":6384,"name":"Keanu Reeves",` +
			`"character":"Neo","billing_order":0,"profile_path":"/k.jpg"}],` +
			`"crew":[{"person_id":"66666666-6666-4666-8666-666666666666","tmdb_person_id":9339,"name":"Lana Wachowski",` +
			`"job":"Director","department":"Directing","profile_path":null}],"enriched_at":"2024-03-03T09:00:00Z"}`,
			"2024-03-03T09:00:00.000Z"})
	// Nothing in our tables breaks a foreign key.
	wantRows(t, db, `SELECT count(*) FROM pragma_foreign_key_check`, []string{"0"})
}

// backups lists the backup files beside path.
func backups(t testing.TB, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".movies-diary-backup*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAdoptCarriesEveryRow(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	orig, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	before, err := tableCounts(ctx, orig)
	orig.Close()
	if err != nil {
		t.Fatal(err)
	}

	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatalf("migrate a movies-diary database: %v", err)
	}
	checkAdopted(t, path)

	// The backup is the original, unchanged.
	b := backups(t, path)
	if len(b) != 1 {
		t.Fatalf("backups %v, want one", b)
	}
	bdb, err := openRaw(b[0])
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	after, err := tableCounts(ctx, bdb)
	if err != nil {
		t.Fatal(err)
	}
	if !mapsEqual(before, after) {
		t.Errorf("backup counts %v, original %v", after, before)
	}
	wantRows(t, bdb, `SELECT count(*) FROM _sqlx_migrations`, []string{"30"})
	wantRows(t, bdb, `SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'`, []string{"0"})
}

// TestAdoptNATSDeployment: the database of a deployment that ran on NATS (sqlx versions 1–29,
// no event_queue) is adopted like one on the database bus; its outbox starts with the
// adoption's reindex request, and a second start changes nothing.
func TestAdoptNATSDeployment(t *testing.T) {
	t.Parallel()
	path := newNATSLegacyDB(t)
	ctx := context.Background()
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatalf("migrate a movies-diary database that ran on NATS: %v", err)
	}
	checkAdoptedDeployment(t, path, true)
	first := dumpDB(t, path)
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if dumpDB(t, path) != first {
		t.Error("the second start changed the database")
	}
}

// TestAdoptRefusesAQueueVersionWithoutItsTable: version 100 recorded without event_queue is
// neither shape the original leaves; it is refused unchanged, naming the table.
func TestAdoptRefusesAQueueVersionWithoutItsTable(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE event_queue`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dumpDB(t, path)
	err = openStore(t, path).Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "event_queue") {
		t.Fatalf("migrate without event_queue but with its version: %v, want a refusal naming it", err)
	}
	if dumpDB(t, path) != before || len(backups(t, path)) != 0 {
		t.Error("a refused adoption changed the database or wrote a backup")
	}
}

// TestAdoptSaysWhatItKeepsAndDrops: tables and columns the original's last schema does not have
// are compared, not assumed: an unknown table is kept as legacy_<name> with a warning when it
// has rows, an unknown column is kept where its table is kept and dropped where its rows are
// carried, each with a warning; every kept original table with rows gets its warning.
func TestAdoptSaysWhatItKeepsAndDrops(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE push_subscriptions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id),
			endpoint TEXT NOT NULL);
		INSERT INTO push_subscriptions VALUES ('p1', '` + lgAlice + `', 'https://push.example/1'),
			('p2', '` + lgBob + `', 'https://push.example/2');
		CREATE TABLE scratch (x INTEGER);
		ALTER TABLE reviews ADD COLUMN spoiler INTEGER;
		UPDATE reviews SET spoiler = 1 WHERE id = '77777777-7777-4777-8777-777777777771';
		ALTER TABLE ap_announces ADD COLUMN note TEXT;
		ALTER TABLE webhook_tokens ADD COLUMN scopes TEXT`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var log logRecords
	if err := openStore(t, path).Migrate(context.Background(), log.logger()); err != nil {
		t.Fatal(err)
	}
	db, err = openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT id, user_id, endpoint FROM legacy_push_subscriptions ORDER BY id`,
		[]string{"p1", lgAlice, "https://push.example/1"}, []string{"p2", lgBob, "https://push.example/2"})
	wantRows(t, db, `SELECT count(*) FROM legacy_scratch`, []string{"0"})
	wantRows(t, db, `SELECT id, note FROM legacy_ap_announces`, []string{"https://social.example/announces/1", "<nil>"})

	var kept []string
	for _, r := range log.with(t, "kept original table") {
		kept = append(kept, r["table"]+" "+r["rows"]+" "+r["reason"])
	}
	const noPlace = "holds data this version has no place for"
	want := []string{
		"legacy_ap_announces 1 " + noPlace, "legacy_ap_followers 3 " + noPlace, "legacy_ap_following 3 " + noPlace,
		"legacy_ap_remote_actors 2 " + noPlace, "legacy_ap_remote_watchlist_entries 1 " + noPlace,
		"legacy_push_subscriptions 2 not a table of movies-diary's last schema: kept as it was, nothing reads it",
		"legacy_remote_goals 1 " + noPlace,
	}
	if fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Errorf("kept-table warnings\n got %q\nwant %q", kept, want)
	}
	var cols []string
	for _, r := range log.with(t, "kept column not in movies-diary's last schema") {
		cols = append(cols, "kept "+r["table"]+"."+r["column"]+" "+r["values"]+" "+r["level"])
	}
	for _, r := range log.with(t, "dropped column not in movies-diary's last schema: its values are only in the backup") {
		cols = append(cols, "dropped "+r["table"]+"."+r["column"]+" "+r["values"]+" "+r["level"]+" "+
			strconv.FormatBool(strings.HasSuffix(r["backup"], ".movies-diary-backup")))
	}
	want = []string{"kept legacy_ap_announces.note 0 WARN", "dropped reviews.spoiler 1 WARN true",
		"dropped webhook_tokens.scopes 0 WARN true"}
	if fmt.Sprint(cols) != fmt.Sprint(want) {
		t.Errorf("column warnings\n got %q\nwant %q", cols, want)
	}
}

// TestAdoptRefusesAMissingColumn: a table of the original's last schema without one of its
// columns is not that schema; it is refused unchanged, naming the column.
func TestAdoptRefusesAMissingColumn(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE reviews DROP COLUMN watch_medium; DROP TABLE ap_announces`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dumpDB(t, path)
	err = openStore(t, path).Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "column reviews.watch_medium") || !strings.Contains(err.Error(), "table ap_announces") {
		t.Fatalf("migrate without reviews.watch_medium and ap_announces: %v, want a refusal naming both", err)
	}
	if dumpDB(t, path) != before || len(backups(t, path)) != 0 {
		t.Error("a refused adoption changed the database or wrote a backup")
	}
}

// TestAdoptSettlesTheOriginalsOpenEvents: the original's pending rows each get their fate. A
// BackfillFollower (its worker still owed alice's new follower her reviews) stays pending, and
// our backfill handler sends the follower her review; social events its server answered when
// it wrote them (an Unfollowed, an incoming FollowAccepted) and one nothing consumes are settled
// as done, saying why; a type it never wrote is dead-lettered, saying why. Nothing is settled
// as done in silence.
func TestAdoptSettlesTheOriginalsOpenEvents(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	const shared = "https://social.example/inbox" // carol's shared inbox; carol follows alice
	if _, err := db.Exec(`INSERT INTO event_queue (event_type, payload, status, attempts, created_at, next_attempt_at) VALUES
		('BackfillFollower', '{"type":"BackfillFollower","data":{"owner_user_id":"` + lgAlice + `","follower_inbox_url":"` + shared + `"}}',
			'pending', 0, '2025-01-03T00:00:00Z', '2025-01-03T00:00:00Z'),
		('Unfollowed', '{"type":"Unfollowed","data":{"follower_id":"` + lgAlice + `","target_kind":"remote","target_id":"` + lgRemote2 + `"}}',
			'pending', 0, '2025-01-03T00:00:01Z', '2025-01-03T00:00:01Z'),
		('FollowAccepted', '{"type":"FollowAccepted","data":{"owner_id":"` + lgAlice + `","requester_kind":"remote","requester_id":"` + lgRemote + `"}}',
			'processing', 1, '2025-01-03T00:00:02Z', '2025-01-03T00:00:02Z'),
		('WatchEventIngested', '{"type":"WatchEventIngested","data":{"user_id":"` + lgBob + `","title":"Heat","source":"plex"}}',
			'pending', 0, '2025-01-03T00:00:03Z', '2025-01-03T00:00:03Z'),
		('MysteryEvent', '{"type":"MysteryEvent"}', 'pending', 2, '2025-01-03T00:00:04Z', '2025-01-03T00:00:04Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var log logRecords
	s := openStore(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Migrate(ctx, log.logger()); err != nil {
		t.Fatal(err)
	}
	db, err = openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT id, event_type, status, claimed_at, last_error FROM event_queue WHERE id BETWEEN 5 AND 9 ORDER BY id`,
		[]string{"5", "BackfillFollower", "pending", "<nil>", "<nil>"},
		[]string{"6", "Unfollowed", "done", "<nil>", legacyEffected},
		[]string{"7", "FollowAccepted", "done", "<nil>", legacyEffected},
		[]string{"8", "WatchEventIngested", "done", "<nil>", legacyUnconsumed},
		[]string{"9", "MysteryEvent", "dead_lettered", "<nil>", legacyUnknown})
	var settled []string
	for _, r := range log.with(t, "adopted outbox rows settled, not delivered") {
		settled = append(settled, r["event_type"]+" "+r["status"]+" "+r["rows"]+" "+r["level"])
	}
	want := []string{"FollowAccepted done 1 WARN", "Unfollowed done 1 WARN", "WatchEventIngested done 1 WARN",
		"MysteryEvent dead_lettered 1 WARN"}
	if fmt.Sprint(settled) != fmt.Sprint(want) {
		t.Errorf("settled-rows warnings\n got %q\nwant %q", settled, want)
	}

	// Our backfill handler takes the BackfillFollower: alice's one local review goes to the inbox.
	fed, err := activitypub.New(s, activitypub.Config{BaseURL: lgBase, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	var handlers []delivery.Handler
	for _, h := range fed.Handlers() {
		if h.Name == activitypub.BackfillHandler {
			handlers = append(handlers, h)
		}
	}
	engine, err := delivery.NewEngine(delivery.Config{Logger: testLogger(t)}, s.Ledger(), handlers...)
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue(outbox.QueueConfig{Logger: testLogger(t)})
	defer q.Close()
	done := make(chan error, 1)
	go func() { done <- delivery.NewPump(q, engine, delivery.PumpConfig{Logger: testLogger(t)}).Run(ctx) }()
	deliverytest.Eventually(t, 10*time.Second, "the BackfillFollower row done", func() bool {
		return rowsOf(t, db, `SELECT status FROM event_queue WHERE id = 5`)[0][0] == "done"
	})
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT json_extract(payload, '$.data.inbox_url'), json_extract(payload, '$.data.activity_json.type'),
		json_extract(payload, '$.data.activity_json.object.id') FROM event_queue WHERE event_type = 'FederationDeliveryRequested'`,
		[]string{shared, "Create", lgBase + "/reviews/77777777-7777-4777-8777-777777777771"})
}

// TestAdoptServerAndWorkerAtOnce: two processes (the server and the worker) start on the same
// original database at once; one adopts it, the other then finds an ordinary database.
func TestAdoptServerAndWorkerAtOnce(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i := range errs {
		wg.Go(func() {
			s, err := Open(ctx, path)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			<-start
			errs[i] = s.Migrate(ctx, testLogger(t))
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	checkAdopted(t, path)
	if b := backups(t, path); len(b) != 1 {
		t.Errorf("backups %v, want exactly one", b)
	}
}

// TestAdoptServerAndWorkerProcesses is the same with two real processes (the file lock is what
// serialises them).
func TestAdoptServerAndWorkerProcesses(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	runMigrateChildren(t, path, 2)
	checkAdopted(t, path)
	if b := backups(t, path); len(b) != 1 {
		t.Errorf("backups %v, want exactly one", b)
	}
}

// TestAdoptedProcessingRowDeliveredOnce: the row the original left stranded in 'processing' is
// claimed again at once and delivered exactly once, like the pending one; done and
// dead-lettered rows are not delivered.
func TestAdoptedProcessingRowDeliveredOnce(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	s := openStore(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := map[string]string{} // status -> event id
	for _, r := range rowsOf(t, db, `SELECT status, event_id FROM event_queue WHERE id < 5`) {
		ids[r[0]] = r[1]
	}
	// A movies-diary process not stopped in time writes the way it always did: no event id.
	if _, err := db.Exec(`INSERT INTO event_queue (event_type, payload) VALUES ('SearchReindexRequested',
		'{"type":"SearchReindexRequested"}')`); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	calls := map[string]int{}
	engine, err := delivery.NewEngine(delivery.Config{Logger: testLogger(t)}, s.Ledger(), delivery.Handler{
		Name: "count", Types: []string{"SearchReindexRequested"},
		Handle: func(_ context.Context, e delivery.Envelope) error {
			mu.Lock()
			defer mu.Unlock()
			calls[e.EventID]++
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue(outbox.QueueConfig{Logger: testLogger(t)})
	defer q.Close()
	pump := delivery.NewPump(q, engine, delivery.PumpConfig{Logger: testLogger(t)})
	done := make(chan error, 1)
	go func() { done <- pump.Run(ctx) }()
	deliverytest.Eventually(t, 10*time.Second, "legacy pending and processing rows done", func() bool {
		return rowsOf(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`)[0][0] == "5"
	})
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The legacy processing and pending rows, the adoption's reindex request and the row
	// without an id (delivered as "", without dedup), each once.
	if calls[ids["processing"]] != 1 || calls[ids["pending"]] != 1 || calls[""] != 1 || len(calls) != 4 {
		t.Errorf("deliveries %v, want the processing row %s, the pending one %s, the reindex request and the id-less row once each",
			calls, ids["processing"], ids["pending"])
	}
	wantRows(t, db, `SELECT handler, status FROM processed_events WHERE event_id = '`+ids["processing"]+`'`,
		[]string{"count", "done"})
}

// runMigrateChildren starts n processes that migrate path (TestMain's child mode), releases
// them at once and waits for all; any failure fails t.
func runMigrateChildren(t *testing.T, path string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	release := make([]func() error, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SQLITE_TEST_MIGRATE_CHILD="+path)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		release[i] = stdin.Close
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				errs[i] = fmt.Errorf("process %d: %v: %s", i, err, out.String())
			}
		})
	}
	for _, r := range release {
		r()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// dumpDB is every row of every table, for comparing a database before and after a start.
func dumpDB(t testing.TB, path string) string {
	t.Helper()
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, r := range rowsOf(t, db, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`) {
		fmt.Fprintf(&b, "%s\n", r[1])
		if strings.HasPrefix(r[1], "CREATE VIRTUAL") {
			continue
		}
		fmt.Fprintf(&b, "%q\n", rowsOf(t, db, `SELECT * FROM "`+r[0]+`"`))
	}
	return b.String()
}

func TestAdoptSecondStartChangesNothing(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	first := dumpDB(t, path)
	s2 := openStore(t, path)
	if err := s2.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if second := dumpDB(t, path); second != first {
		t.Errorf("the second start changed the database:\nbefore %s\nafter %s", first, second)
	}
	if b := backups(t, path); len(b) != 1 {
		t.Errorf("backups %v after two starts, want one", b)
	}
}

// TestAdoptRefusesAnOlderOriginal: a database the original left at an older schema is refused,
// unchanged, with the way forward in the error.
func TestAdoptRefusesAnOlderOriginal(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM _sqlx_migrations WHERE version = 29`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dumpDB(t, path)
	s := openStore(t, path)
	err = s.Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "last movies-diary release") {
		t.Fatalf("migrate an older original: %v, want a refusal naming the way forward", err)
	}
	if dumpDB(t, path) != before {
		t.Error("a refused adoption changed the database")
	}
	if b := backups(t, path); len(b) != 0 {
		t.Errorf("backups %v for a refused adoption", b)
	}
}

// TestAdoptRefusesWithoutBackup: when the backup cannot be written (here its name is taken by a
// directory that VACUUM INTO cannot replace), nothing is changed and start-up fails.
func TestAdoptRefusesWithoutBackup(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	// Every name a backup may take in the next minute is a directory with content, so VACUUM
	// INTO fails.
	names := []string{path + ".movies-diary-backup"}
	for i := range 60 {
		names = append(names, path+".movies-diary-backup-"+time.Now().UTC().Add(time.Duration(i)*time.Second).Format("20060102T150405Z"))
	}
	for _, name := range names {
		if err := os.MkdirAll(filepath.Join(name, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpDB(t, path)
	s := openStore(t, path)
	err := s.Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "no verified backup") {
		t.Fatalf("migrate without a possible backup: %v, want a refusal", err)
	}
	if dumpDB(t, path) != before {
		t.Error("adoption without a backup changed the database")
	}
}

// TestAdoptAfterAFailedStart: a moviesdiary build from before adoption, started on the original,
// failed at 0001 and left schema_migrations dirty at version 1; adoption replaces it.
func TestAdoptAfterAFailedStart(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version uint64, dirty bool);
		INSERT INTO schema_migrations VALUES (1, true)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := openStore(t, path)
	if err := s.Migrate(context.Background(), testLogger(t)); err != nil {
		t.Fatalf("migrate after a failed start: %v", err)
	}
	checkAdopted(t, path)
}

// TestAdoptRefusesAMixedDatabase: _sqlx_migrations beside a schema of ours past version 1 is
// neither database; it is refused unchanged.
func TestAdoptRefusesAMixedDatabase(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version uint64, dirty bool);
		INSERT INTO schema_migrations VALUES (105, false)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dumpDB(t, path)
	s := openStore(t, path)
	if err := s.Migrate(context.Background(), testLogger(t)); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("migrate a mixed database: %v, want a refusal", err)
	}
	if dumpDB(t, path) != before {
		t.Error("a refused adoption changed the database")
	}
}

// TestCarriesInMigrationOrder: the steps run in the order of the migrations they need, and each
// needs one at or below adoptVersion.
func TestCarriesInMigrationOrder(t *testing.T) {
	t.Parallel()
	prev := uint64(0)
	for _, c := range carries {
		if c.need() < prev || c.need() > adoptVersion {
			t.Errorf("carry %s needs %d after a step needing %d (adoptVersion %d)", c.name, c.need(), prev, adoptVersion)
		}
		prev = c.need()
	}
}

// TestAdoptRefusesAWriteAfterTheBackup: a movies-diary still running that writes between the
// backup and the conversion (here an edit, which leaves every row count as it was) stops the
// adoption; nothing of it is applied.
func TestAdoptRefusesAWriteAfterTheBackup(t *testing.T) {
	path := newLegacyDB(t)
	adoptAfterBackup = func(p string) {
		db, err := sql.Open("sqlite3", "file:"+p)
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.Exec(`UPDATE users SET bio = 'edited meanwhile' WHERE username = 'bob'`); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { adoptAfterBackup = nil })
	s := openStore(t, path)
	err := s.Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "changed while it was backed up") {
		t.Fatalf("migrate with a write after the backup: %v, want a refusal", err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT count(*) FROM sqlite_master WHERE name IN ('_sqlx_migrations', 'legacy_users', 'schema_migrations')`,
		[]string{"1"})
	wantRows(t, db, `SELECT bio FROM users WHERE username = 'bob'`, []string{"edited meanwhile"})
}

// TestAdoptedRemoteReviewTakesUpdates: an Update from the author of a review the original
// stored lands on the carried row (re-keyed to our id), not on a second one or an error.
func TestAdoptedRemoteReviewTakesUpdates(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	const apID = "https://social.example/reviews/1"
	ext := "tmdb:603"
	err := s.SaveRemoteReview(ctx, domain.RemoteReview{
		ID: federation.RemoteReviewID(apID), APID: apID, ActorURL: lgRemote, UserID: federation.RemoteUserID(lgRemote),
		Movie:  domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix", ReleaseYear: 1999},
		Rating: 2, WatchedAt: time.Date(2024, 2, 1, 18, 0, 0, 0, time.UTC), Published: time.Date(2024, 2, 2, 10, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatalf("update an adopted remote review: %v", err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT id, rating FROM reviews WHERE ap_id = '`+apID+`'`,
		[]string{federation.RemoteReviewID(apID).String(), "2"})
}

// TestAdoptRefusesCaseTwins: two original accounts whose user names differ only in letter case
// are named in the refusal, before anything is written.
func TestAdoptRefusesCaseTwins(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO users (id, email, username, password_hash, created_at)
		VALUES ('12121212-1212-4121-8121-121212121212', 'other@example.org', 'Alice', 'x', '2024-03-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dumpDB(t, path)
	s := openStore(t, path)
	err = s.Migrate(context.Background(), testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "username alice / Alice") && !strings.Contains(err.Error(), "username Alice / alice") {
		t.Fatalf("migrate with case twins: %v, want a refusal naming them", err)
	}
	if dumpDB(t, path) != before || len(backups(t, path)) != 0 {
		t.Error("a refused adoption changed the database or wrote a backup")
	}
}

// TestAdoptedDataServesReads: what the adoption carried reads back through the store: the
// profile document, and the search index the enqueued reindex rebuilds (a keyword from the
// original's keywords table, a cast name from its cast table).
func TestAdoptedDataServesReads(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	doc, err := s.MovieProfile(ctx, uuid.MustParse(lgMatrix))
	if err != nil || !strings.Contains(string(doc), `"tagline":"Free your mind"`) {
		t.Fatalf("profile %s, %v", doc, err)
	}
	if err := s.Reindex(ctx, 100); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"artificial", "keanu", "matrix"} {
		hits, err := s.SearchMovies(ctx, search.Query{Text: text, Page: domain.Page{Limit: 10}})
		if err != nil || len(hits.Items) != 1 || hits.Items[0].ID.String() != lgMatrix {
			t.Errorf("search %q: %+v, %v; want The Matrix", text, hits, err)
		}
	}
}

// TestAdoptedWebhooksAndProfilesServe: what migrations 0185–0187 carried works through the
// store as ours does: the token the original showed authenticates its provider's webhook (and
// only that provider's), the pending events are the user's queue, a repeated report of an
// adopted watch is recognised by the key our code computes (the external id; the title folded
// in Unicode), and the converted profile decodes to the original's mappings.
func TestAdoptedWebhooksAndProfilesServe(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	bob, alice := uuid.MustParse(lgBob), uuid.MustParse(lgAlice)
	svc := integration.NewService(s, nil, nil)
	tok, err := svc.Authenticate(ctx, domain.SourceJellyfin, lgWebhookSecret)
	if err != nil || tok.UserID != bob || tok.Label == nil || *tok.Label != "living room" || tok.LastUsedAt == nil {
		t.Fatalf("the original's token on the jellyfin webhook: %+v, %v; want bob's token, its use recorded", tok, err)
	}
	if _, err := svc.Authenticate(ctx, domain.SourcePlex, lgWebhookSecret); domain.KindOf(err) != domain.KindUnauthorized {
		t.Errorf("bob's jellyfin token on the plex webhook: %v, want unauthorized", err)
	}
	if tok, err := svc.Authenticate(ctx, domain.SourcePlex, "plex-"+lgWebhookSecret); err != nil || tok.UserID != alice {
		t.Errorf("alice's plex token: %+v, %v", tok, err)
	}

	queue, err := s.PendingWatches(ctx, bob)
	if err != nil || len(queue) != 1 || queue[0].ID.String() != "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" ||
		queue[0].MovieID == nil || queue[0].MovieID.String() != lgMatrix {
		t.Fatalf("bob's queue %+v, %v; want the pending Matrix event", queue, err)
	}
	matrix, y1994 := "tmdb:603", 1994
	for _, ev := range []domain.WatchEvent{
		{UserID: bob, Source: domain.SourceJellyfin, Title: "The Matrix", ExternalID: &matrix},
		{UserID: alice, Source: domain.SourcePlex, Title: "léon", Year: &y1994},
	} {
		ev.ID, ev.Status = uuid.New(), domain.WatchPending
		ev.WatchedAt = time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)
		saved, err := s.SaveWatch(ctx, ev, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), nil)
		if err != nil || saved {
			t.Errorf("a repeat of the adopted watch %q: saved %v, %v; want it recognised", ev.Title, saved, err)
		}
	}

	p, err := s.ImportProfile(ctx, alice, uuid.MustParse("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[{Name title <nil> } {Rating rating 2 } {Date watched_at <nil> %d/%m/%Y} {Year release_year <nil> }]"
	var got []string
	for _, m := range p.Mappings {
		scale := "<nil>"
		if m.RatingScale != nil {
			scale = fmt.Sprint(*m.RatingScale)
		}
		got = append(got, fmt.Sprintf("{%s %s %s %s}", m.SourceColumn, m.Field, scale, m.DateFormat))
	}
	if g := "[" + strings.Join(got, " ") + "]"; g != want || p.Name != "Letterboxd" {
		t.Errorf("profile %q mappings %s, want %s", p.Name, g, want)
	}
	if ps, err := s.ImportProfiles(ctx, bob); err != nil || len(ps) != 1 || len(ps[0].Mappings) != 0 {
		t.Errorf("bob's profiles %+v, %v; want the unreadable one, with no mappings", ps, err)
	}
}

// TestCarryMigrationsOnAnOrdinaryDatabase: on a database that never was the original's,
// migrations 0185–0187 carry nothing and leave no legacy table behind, and a second start
// changes nothing.
func TestCarryMigrationsOnAnOrdinaryDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "fresh.db")
	ctx := context.Background()
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRows(t, db, `SELECT count(*) FROM sqlite_master WHERE name LIKE 'legacy%'`, []string{"0"})
	wantRows(t, db, `SELECT (SELECT count(*) FROM webhook_tokens) + (SELECT count(*) FROM watch_events) +
		(SELECT count(*) FROM import_profiles)`, []string{"0"})
	first := dumpDB(t, path)
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	if dumpDB(t, path) != first {
		t.Error("a second start changed an ordinary database")
	}
}

// TestAdoptedByAnEarlierBuild: a database a build from before 0185 adopted (brought to 0171,
// its webhook tokens, watch events and import profiles still in legacy_* tables) gets them
// carried at its next start, as a fresh adoption does.
func TestAdoptedByAnEarlierBuild(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.adoptLegacy(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, s, 171)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT count(*) FROM sqlite_master WHERE name IN ('legacy_webhook_tokens', 'legacy_watch_events',
		'legacy_import_profiles')`, []string{"3"})
	db.Close()
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	checkAdopted(t, path)
}

// TestRekeyAfterAnInterruptedStart: when a start stopped after migration 0186 but before the
// title keys were recomputed, the next start recomputes them.
func TestRekeyAfterAnInterruptedStart(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	s := openStore(t, path)
	if err := s.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const id = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaab"
	if _, err := db.Exec(`UPDATE watch_events SET dedup_key = 'title:' || lower(trim(title)) || '|' || year WHERE id = ?;
		CREATE TABLE legacy_watch_dedup (id TEXT PRIMARY KEY); INSERT INTO legacy_watch_dedup VALUES (?)`, id, id); err != nil {
		t.Fatal(err)
	}
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, `SELECT dedup_key FROM watch_events WHERE id = '`+id+`'`, []string{"title:léon|1994"})
	wantRows(t, db, `SELECT count(*) FROM sqlite_master WHERE name = 'legacy_watch_dedup'`, []string{"0"})
}
