-- Accounts a self-hoster can trust (issue 35). approved is false while a registration waits for
-- an admin (REGISTRATION_MODE=approval); such an account cannot log in.
ALTER TABLE users ADD COLUMN approved boolean NOT NULL DEFAULT true;

-- Invite links: one row per link, only the SHA-256 hex of its token stored. admin makes the
-- account it creates an admin (the one-time setup link of a new instance, created_by NULL). A link
-- works once (used_by set in the transaction that creates the account) and until expires_at.
CREATE TABLE invites (
    token_hash text PRIMARY KEY,
    created_by text REFERENCES users (id) ON DELETE CASCADE,
    admin      boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL, -- Unix ms
    expires_at bigint NOT NULL, -- Unix ms
    used_by    text,
    used_at    bigint           -- Unix ms
);

-- Usernames no account may take: the old handle of a renamed account (remote servers still
-- know it) and the username of a deleted one (never reissued).
CREATE TABLE reserved_usernames (
    username    citext PRIMARY KEY,
    user_id     text NOT NULL,
    reserved_at bigint NOT NULL -- Unix ms
);
