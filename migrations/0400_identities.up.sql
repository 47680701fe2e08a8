-- Single sign-on (issue 35): an account's logins at OpenID Connect providers. A provider names a
-- person by its issuer and their subject (the ID token's iss and sub, stable there, never reused);
-- the pair points at one local account. Deleting the account deletes its links, so the person's
-- next sign-in makes a new account (under a new username: the old one is never reissued).
CREATE TABLE user_identities (
    issuer     TEXT NOT NULL,
    subject    TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL, -- Unix ms
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX idx_user_identities_user ON user_identities (user_id);
