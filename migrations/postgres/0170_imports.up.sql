-- Diary imports. A session is one uploaded file: its header, how its columns map onto a review
-- (mappings, JSON), and its rows, stored as they were read so the preview and the confirmation
-- stream them from here instead of holding the file in memory. A session expires a day after
-- the upload; the maintenance job deletes it with its rows.
CREATE TABLE import_sessions (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    format      text NOT NULL,                  -- csv, tsv, json, xlsx
    kind        text NOT NULL,                  -- custom, or the known export recognised
    target      text NOT NULL DEFAULT 'diary',  -- diary or watchlist
    columns     text NOT NULL,                  -- JSON array of the header
    mappings    text,                           -- JSON array, NULL until set
    row_count   integer NOT NULL DEFAULT 0,
    complete    boolean NOT NULL DEFAULT false, -- true once every row of the upload is stored
    federate    boolean NOT NULL DEFAULT false, -- the confirm request asked to federate
    created_at  bigint NOT NULL,                -- unix ms
    expires_at  bigint NOT NULL                 -- unix ms
);
CREATE INDEX idx_import_sessions_user ON import_sessions (user_id);
CREATE INDEX idx_import_sessions_expiry ON import_sessions (expires_at);

-- One row of a session's file. selected marks the rows a confirm request named; outcome is set
-- in the same transaction as the review the row became, so a crash leaves every row either done
-- with its review or pending without one.
CREATE TABLE import_rows (
    session_id text NOT NULL REFERENCES import_sessions (id) ON DELETE CASCADE,
    idx        integer NOT NULL,
    cells      text NOT NULL,                   -- JSON array of strings
    read_error text,                            -- the parser could not read this line
    selected   boolean NOT NULL DEFAULT false,
    outcome    text CHECK (outcome IN ('imported', 'duplicate', 'failed')),
    error      text,
    PRIMARY KEY (session_id, idx)
);
CREATE INDEX idx_import_rows_pending ON import_rows (session_id, selected, outcome, idx);

-- Saved mappings, reusable on the next file of the same shape.
CREATE TABLE import_profiles (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL,
    mappings   text NOT NULL,
    created_at text NOT NULL
);
CREATE INDEX idx_import_profiles_user ON import_profiles (user_id);
