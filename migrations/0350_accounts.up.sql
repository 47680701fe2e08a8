-- Accounts a self-hoster can trust (issue 35). approved is false while a registration waits for
-- an admin (REGISTRATION_MODE=approval); such an account cannot log in.
ALTER TABLE users ADD COLUMN approved INTEGER NOT NULL DEFAULT 1;

-- Invite links: one row per link, only the SHA-256 hex of its token stored. admin makes the
-- account it creates an admin (the one-time setup link of a new instance, created_by NULL). A link
-- works once (used_by set in the transaction that creates the account) and until expires_at.
CREATE TABLE invites (
    token_hash TEXT PRIMARY KEY,
    created_by TEXT REFERENCES users (id) ON DELETE CASCADE,
    admin      INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, -- Unix ms
    expires_at INTEGER NOT NULL, -- Unix ms
    used_by    TEXT,
    used_at    INTEGER           -- Unix ms
);

-- Usernames no account may take: the old handle of a renamed account (remote servers still
-- know it) and the username of a deleted one (never reissued).
CREATE TABLE reserved_usernames (
    username    TEXT PRIMARY KEY COLLATE NOCASE,
    user_id     TEXT NOT NULL,
    reserved_at INTEGER NOT NULL -- Unix ms
);
