-- Mail (issue 35): password reset and e-mail confirmation links, sent by the worker through the
-- outbox. email_confirmed is false while a new account's address waits for its link (only when
-- mail is configured); existing accounts count as confirmed.
ALTER TABLE users ADD COLUMN email_confirmed boolean NOT NULL DEFAULT true;

-- One row per requested link. The request's transaction writes the row (no token yet) and the
-- event; the worker's mail handler mints the token and stores only its SHA-256 hex here before
-- sending, so no token is ever in the outbox. kind is 'password_reset' (email: where it is sent)
-- or 'email' (email: the address to confirm). A link works once (used_at) and until expires_at.
CREATE TABLE mail_tokens (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind         text NOT NULL,
    email        citext NOT NULL,
    token_hash   text UNIQUE,
    requested_at bigint NOT NULL, -- Unix ms
    expires_at   bigint NOT NULL, -- Unix ms
    used_at      bigint           -- Unix ms
);
CREATE INDEX mail_tokens_user ON mail_tokens (user_id, kind, requested_at);
