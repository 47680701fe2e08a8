-- Webhook tokens a database adopted from the original movies-diary kept in legacy_webhook_tokens
-- (adopt.go: our schema at 0142 had no place for them). Both sides store the SHA-256 hex of the
-- token, so a media server configured for the original keeps working unchanged. On any other
-- database the legacy table does not exist: it is created empty here, so the statements carry
-- nothing, and dropped. Tokens of users that were not carried go with them; the original's
-- times ("YYYY-MM-DD HH:MM:SS", UTC) become Unix ms.
CREATE TABLE IF NOT EXISTS legacy_webhook_tokens (
    id           TEXT,
    user_id      TEXT,
    token_hash   TEXT,
    provider     TEXT,
    label        TEXT,
    created_at   TEXT,
    last_used_at TEXT
);

INSERT OR IGNORE INTO webhook_tokens (id, user_id, provider, label, token_hash, auto_confirm_rating, created_at, last_used_at)
SELECT id, user_id, provider, nullif(trim(label), ''), lower(token_hash), NULL,
    COALESCE(CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER),
        CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
    CAST(ROUND((julianday(last_used_at) - 2440587.5) * 86400000) AS INTEGER)
FROM legacy_webhook_tokens
WHERE user_id IN (SELECT id FROM users) AND token_hash IS NOT NULL AND provider IS NOT NULL;

DROP TABLE legacy_webhook_tokens;
