-- Wrap-ups: requested viewing summaries the worker generates. At most one live (Pending,
-- Generating or Ready) record per user (NULL = instance-wide) and date range: a second request
-- returns the live one.
CREATE TABLE wrapups (
    id            TEXT PRIMARY KEY,
    user_id       TEXT REFERENCES users (id) ON DELETE CASCADE,
    status        TEXT NOT NULL CHECK (status IN ('Pending', 'Generating', 'Ready', 'Failed')),
    start_date    TEXT NOT NULL,
    end_date      TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    completed_at  TEXT,
    error_message TEXT,
    report        TEXT
);
CREATE UNIQUE INDEX idx_wrapups_live ON wrapups (ifnull(user_id, ''), start_date, end_date)
    WHERE status IN ('Pending', 'Generating', 'Ready');
CREATE INDEX idx_wrapups_user ON wrapups (user_id, created_at DESC);
