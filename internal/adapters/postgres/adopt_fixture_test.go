package postgres_test

import (
	"context"
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
