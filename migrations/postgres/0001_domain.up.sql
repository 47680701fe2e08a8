-- Domain schema: users, movies, reviews, watchlist and follows. Ids are UUID strings; times are
-- RFC 3339 UTC text with milliseconds (fixed width, so text order is time order), as on SQLite,
-- so the Go code reads and writes the same values on both stores. User names and e-mails compare
-- without case (SQLite's COLLATE NOCASE): citext.
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE users (
    id            text PRIMARY KEY,
    username      citext NOT NULL UNIQUE,
    email         citext NOT NULL UNIQUE,
    password_hash text NOT NULL,
    is_admin      boolean NOT NULL DEFAULT false,
    display_name  text,
    bio           text,
    created_at    text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);

CREATE TABLE movies (
    id                   text PRIMARY KEY,
    external_metadata_id text UNIQUE,
    title                text NOT NULL,
    release_year         integer,
    director             text,
    poster_path          text,
    created_at           text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
-- Titles match without case: the queries compare lower(title).
CREATE INDEX idx_movies_title_year ON movies (lower(title), release_year);

CREATE TABLE reviews (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    movie_id     text NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    rating       integer NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment      text,
    watch_medium text,
    watched_at   text NOT NULL,
    created_at   text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    updated_at   text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
CREATE INDEX idx_reviews_user_watched ON reviews (user_id, watched_at DESC);
CREATE INDEX idx_reviews_movie ON reviews (movie_id, watched_at DESC);

CREATE TABLE watchlist (
    user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    movie_id text NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    added_at text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    PRIMARY KEY (user_id, movie_id)
);

-- follows links a follower to a target; either side is a local user id or a remote actor URL
-- (kind 'local' or 'remote'). A follow is pending until the target accepts it.
CREATE TABLE follows (
    follower_kind text NOT NULL CHECK (follower_kind IN ('local', 'remote')),
    follower_id   text NOT NULL,
    target_kind   text NOT NULL CHECK (target_kind IN ('local', 'remote')),
    target_id     text NOT NULL,
    status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted')),
    created_at    text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    PRIMARY KEY (follower_kind, follower_id, target_kind, target_id)
);
CREATE INDEX idx_follows_target ON follows (target_kind, target_id, status);

CREATE TABLE blocks (
    blocker_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    target_kind text NOT NULL CHECK (target_kind IN ('local', 'remote')),
    target_id   text NOT NULL,
    created_at  text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    PRIMARY KEY (blocker_id, target_kind, target_id)
);
