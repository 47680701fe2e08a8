-- Diary imports. A session is one uploaded file: its header, how its columns map onto a review
-- (mappings, JSON), and its rows, stored as they were read so the preview and the confirmation
-- stream them from here instead of holding the file in memory. A session expires a day after
-- the upload; the maintenance job deletes it with its rows.
CREATE TABLE import_sessions (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    format      TEXT NOT NULL,                 -- csv, tsv, json, xlsx
    kind        TEXT NOT NULL,                 -- custom, or the known export recognised
    target      TEXT NOT NULL DEFAULT 'diary', -- diary or watchlist
    columns     TEXT NOT NULL,                 -- JSON array of the header
    mappings    TEXT,                          -- JSON array, NULL until set
    row_count   INTEGER NOT NULL DEFAULT 0,
    complete    INTEGER NOT NULL DEFAULT 0,    -- 1 once every row of the upload is stored
    federate    INTEGER NOT NULL DEFAULT 0,    -- the confirm request asked to federate
    created_at  INTEGER NOT NULL,              -- unix ms
    expires_at  INTEGER NOT NULL               -- unix ms
);
CREATE INDEX idx_import_sessions_user ON import_sessions (user_id);
CREATE INDEX idx_import_sessions_expiry ON import_sessions (expires_at);

-- One row of a session's file. selected marks the rows a confirm request named; outcome is set
-- in the same transaction as the review the row became, so a crash leaves every row either done
-- with its review or pending without one.
CREATE TABLE import_rows (
    session_id TEXT NOT NULL REFERENCES import_sessions (id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    cells      TEXT NOT NULL,                  -- JSON array of strings
    read_error TEXT,                           -- the parser could not read this line
    selected   INTEGER NOT NULL DEFAULT 0,
    outcome    TEXT CHECK (outcome IN ('imported', 'duplicate', 'failed')),
    error      TEXT,
    PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
CREATE INDEX idx_import_rows_pending ON import_rows (session_id, selected, outcome, idx);

-- Saved mappings, reusable on the next file of the same shape.
CREATE TABLE import_profiles (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    mappings   TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX idx_import_profiles_user ON import_profiles (user_id);
