-- The original system's DB-backed event queue, unchanged, so existing databases and their rows
-- carry over; 0101 turns it into the outbox.
CREATE TABLE IF NOT EXISTS event_queue (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    next_attempt_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_error      TEXT
);
CREATE INDEX IF NOT EXISTS idx_event_queue_poll ON event_queue (status, next_attempt_at);
