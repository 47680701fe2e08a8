-- Import rows become an ordinary rowid table (issue 33 §3). In a WITHOUT ROWID table every row
-- lives in the primary key's B-tree itself, so rows of megabytes (a 20 MB cell was accepted)
-- spilled into overflow chains inside the one tree every session's reads and writes walk, and a
-- failed upload's deletion held the writer for minutes. The cells are now bounded (64 KiB a cell,
-- 256 KiB a row) and the table keeps its rows by rowid, the key (session_id, idx) in an index of
-- its own: large rows cannot slow the key's tree for other sessions. Deletions run in batches.
CREATE TABLE import_rows_new (
    session_id TEXT NOT NULL REFERENCES import_sessions (id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    cells      TEXT NOT NULL,                  -- JSON array of strings
    read_error TEXT,                           -- the parser could not read this line
    selected   INTEGER NOT NULL DEFAULT 0,
    outcome    TEXT CHECK (outcome IN ('imported', 'duplicate', 'failed')),
    error      TEXT,
    PRIMARY KEY (session_id, idx)
);
INSERT INTO import_rows_new (session_id, idx, cells, read_error, selected, outcome, error)
    SELECT session_id, idx, cells, read_error, selected, outcome, error FROM import_rows;
DROP TABLE import_rows;
ALTER TABLE import_rows_new RENAME TO import_rows;
CREATE INDEX idx_import_rows_pending ON import_rows (session_id, selected, outcome, idx);
