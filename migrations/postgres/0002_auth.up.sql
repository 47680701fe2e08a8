-- Refresh sessions: one row per live refresh token, stored as the SHA-256 hex of the token (a
-- leaked database does not leak usable tokens). Refresh rotates: the row is replaced.
CREATE TABLE refresh_sessions (
    token_hash text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at bigint NOT NULL, -- Unix ms
    created_at bigint NOT NULL  -- Unix ms
);
CREATE INDEX idx_refresh_sessions_user ON refresh_sessions (user_id);
CREATE INDEX idx_refresh_sessions_expires ON refresh_sessions (expires_at);

-- Per-user federation choices; a user without a row has the defaults (all on).
CREATE TABLE user_settings (
    user_id            text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    federate_reviews   boolean NOT NULL DEFAULT true,
    federate_watchlist boolean NOT NULL DEFAULT true,
    federate_goals     boolean NOT NULL DEFAULT true
);
