-- Secrets every server of an instance must share, generated once by whichever starts first
-- (name 'jwt': the access tokens' signing key when JWT_SECRET is unset). Servers on several hosts
-- have no shared data directory, so the database keeps it.
CREATE TABLE instance_secrets (
    name       text PRIMARY KEY,
    value      text NOT NULL,
    created_at bigint NOT NULL
);
