-- Media-server integrations (Jellyfin, Plex, Emby). A webhook token belongs to one user and one
-- provider; only the SHA-256 hex of the token is stored, so a leaked database leaks no usable
-- token. auto_confirm_rating, when set, turns each accepted watch into a review at once.
CREATE TABLE webhook_tokens (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider            TEXT NOT NULL,
    label               TEXT,
    token_hash          TEXT NOT NULL UNIQUE,
    auto_confirm_rating INTEGER,
    created_at          INTEGER NOT NULL, -- Unix ms
    last_used_at        INTEGER           -- Unix ms
);
CREATE INDEX idx_webhook_tokens_user ON webhook_tokens (user_id, created_at);

-- The watch queue: one row per finished movie a media server reported. dedup_key names the movie
-- (its external id, else its lower-cased title and year) so a repeated scrobble within an hour is
-- recognised; status moves from pending to confirmed (review_id set) or dismissed, once.
CREATE TABLE watch_events (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    title       TEXT NOT NULL,
    year        INTEGER,
    external_id TEXT,
    movie_id    TEXT,
    dedup_key   TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'dismissed')),
    review_id   TEXT,
    watched_at  INTEGER NOT NULL, -- Unix ms
    closed_at   INTEGER           -- Unix ms, when confirmed or dismissed
);
CREATE INDEX idx_watch_events_queue ON watch_events (user_id, status, watched_at);
CREATE INDEX idx_watch_events_dedup ON watch_events (user_id, dedup_key, watched_at);
CREATE INDEX idx_watch_events_closed ON watch_events (closed_at) WHERE closed_at IS NOT NULL;
