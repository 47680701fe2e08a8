-- Media-server integrations (Jellyfin, Plex, Emby). A webhook token belongs to one user and one
-- provider; only the SHA-256 hex of the token is stored, so a leaked database leaks no usable
-- token. auto_confirm_rating, when set, turns each accepted watch into a review at once.
CREATE TABLE webhook_tokens (
    id                  text PRIMARY KEY,
    user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider            text NOT NULL,
    label               text,
    token_hash          text NOT NULL UNIQUE,
    auto_confirm_rating integer,
    created_at          bigint NOT NULL, -- Unix ms
    last_used_at        bigint           -- Unix ms
);
CREATE INDEX idx_webhook_tokens_user ON webhook_tokens (user_id, created_at);

-- The watch queue: one row per finished movie a media server reported. dedup_key names the movie
-- (its external id, else its lower-cased title and year) so a repeated scrobble within an hour is
-- recognised; status moves from pending to confirmed (review_id set) or dismissed, once.
CREATE TABLE watch_events (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    source      text NOT NULL,
    title       text NOT NULL,
    year        integer,
    external_id text,
    movie_id    text,
    dedup_key   text NOT NULL,
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'dismissed')),
    review_id   text,
    watched_at  bigint NOT NULL, -- Unix ms
    closed_at   bigint           -- Unix ms, when confirmed or dismissed
);
CREATE INDEX idx_watch_events_queue ON watch_events (user_id, status, watched_at);
CREATE INDEX idx_watch_events_dedup ON watch_events (user_id, dedup_key, watched_at);
CREATE INDEX idx_watch_events_closed ON watch_events (closed_at) WHERE closed_at IS NOT NULL;
