-- Personal access tokens and two factors (issue 35).

-- A personal access token: a script's long-lived bearer token. Only the SHA-256 hex of the token
-- is stored (it is 256 random bits, so a fast hash is enough). scope is read, write or admin;
-- expires_at NULL never expires. last_used_at is updated at most once a minute per token.
-- Revoking deletes the row; deleting the user deletes their tokens (the foreign key).
CREATE TABLE access_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL, -- Unix ms
    expires_at   INTEGER,          -- Unix ms
    last_used_at INTEGER           -- Unix ms
);
CREATE INDEX idx_access_tokens_user ON access_tokens (user_id);

-- A user's TOTP secret (RFC 6238, base32). enabled_at is NULL while the enrolment waits for its
-- first code; last_step is the latest 30 s time step a code was accepted for, so a code is never
-- accepted twice.
CREATE TABLE two_factor (
    user_id    TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret     TEXT NOT NULL,
    created_at INTEGER NOT NULL, -- Unix ms
    enabled_at INTEGER,          -- Unix ms
    last_step  INTEGER NOT NULL DEFAULT 0
);

-- The single-use recovery codes of a user with two factors: SHA-256 hex of the user id and the
-- code (80 random bits each); used_at is set when one is spent.
CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   INTEGER, -- Unix ms
    PRIMARY KEY (user_id, code_hash)
);
