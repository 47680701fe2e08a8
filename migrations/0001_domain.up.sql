-- Domain schema: users, movies, reviews, watchlist and follows. Ids are UUID strings; times are
-- RFC 3339 UTC text.
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    is_admin      INTEGER NOT NULL DEFAULT 0,
    display_name  TEXT,
    bio           TEXT,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE movies (
    id                   TEXT PRIMARY KEY,
    external_metadata_id TEXT UNIQUE,
    title                TEXT NOT NULL,
    release_year         INTEGER,
    director             TEXT,
    poster_path          TEXT,
    created_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX idx_movies_title_year ON movies (title COLLATE NOCASE, release_year);

CREATE TABLE reviews (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    movie_id     TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment      TEXT,
    watch_medium TEXT,
    watched_at   TEXT NOT NULL,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX idx_reviews_user_watched ON reviews (user_id, watched_at DESC);
CREATE INDEX idx_reviews_movie ON reviews (movie_id, watched_at DESC);

CREATE TABLE watchlist (
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    movie_id TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (user_id, movie_id)
);

-- follows links a follower to a target; either side is a local user id or a remote actor URL
-- (kind 'local' or 'remote'). A follow is pending until the target accepts it.
CREATE TABLE follows (
    follower_kind TEXT NOT NULL CHECK (follower_kind IN ('local', 'remote')),
    follower_id   TEXT NOT NULL,
    target_kind   TEXT NOT NULL CHECK (target_kind IN ('local', 'remote')),
    target_id     TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted')),
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (follower_kind, follower_id, target_kind, target_id)
);
CREATE INDEX idx_follows_target ON follows (target_kind, target_id, status);

CREATE TABLE blocks (
    blocker_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    target_kind TEXT NOT NULL CHECK (target_kind IN ('local', 'remote')),
    target_id   TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (blocker_id, target_kind, target_id)
);
