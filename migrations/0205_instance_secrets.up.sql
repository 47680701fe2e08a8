-- Secrets every server of an instance must share, generated once by whichever starts first
-- (name 'jwt': the access tokens' signing key when JWT_SECRET is unset). A SQLite instance is one
-- host and keeps its generated JWT secret in DATA_DIR/jwt_secret (backed up with the data
-- directory); the table exists here for schema parity and for `server migrate-store`, which
-- carries that file's secret into PostgreSQL's copy of this table.
CREATE TABLE instance_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
