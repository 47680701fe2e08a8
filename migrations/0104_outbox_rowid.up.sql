-- event_queue.id loses AUTOINCREMENT: every outbox insert also rewrote the sqlite_sequence page,
-- about one WAL frame in eight of a review's commit. Plain INTEGER PRIMARY KEY still hands out
-- max(id)+1, so ids keep increasing while rows exist; nothing depends on ids never being reused
-- after the newest rows are deleted (dedup and the ledger key on event_id).
CREATE TABLE event_queue_new (
    id              INTEGER PRIMARY KEY,
    event_id        TEXT,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'processing', 'done', 'dead_lettered')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
    next_attempt_at INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
    claimed_at      INTEGER,
    last_error      TEXT
);
INSERT INTO event_queue_new SELECT id, event_id, event_type, payload, status, attempts, created_at,
    next_attempt_at, claimed_at, last_error FROM event_queue;
DROP TABLE event_queue;
ALTER TABLE event_queue_new RENAME TO event_queue;
CREATE UNIQUE INDEX idx_event_queue_event_id ON event_queue (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX idx_event_queue_poll ON event_queue (status, next_attempt_at);
