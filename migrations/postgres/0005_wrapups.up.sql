-- Wrap-ups: requested viewing summaries the worker generates. At most one live (Pending,
-- Generating or Ready) record per user (NULL = instance-wide) and date range: a second request
-- returns the live one.
CREATE TABLE wrapups (
    id            text PRIMARY KEY,
    user_id       text REFERENCES users (id) ON DELETE CASCADE,
    status        text NOT NULL CHECK (status IN ('Pending', 'Generating', 'Ready', 'Failed')),
    start_date    text NOT NULL,
    end_date      text NOT NULL,
    created_at    text NOT NULL,
    completed_at  text,
    error_message text,
    report        text
);
CREATE UNIQUE INDEX idx_wrapups_live ON wrapups (coalesce(user_id, ''), start_date, end_date)
    WHERE status IN ('Pending', 'Generating', 'Ready');
CREATE INDEX idx_wrapups_user ON wrapups (user_id, created_at DESC);
