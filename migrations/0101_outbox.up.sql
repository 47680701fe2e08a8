-- Turns event_queue into the transactional outbox (see the outbox decision record):
--   * event_id: a UUID, unique when set; every existing row is backfilled with a random one so
--     legacy rows get dedup too. NULL stays allowed for rows from foreign writers (no dedup).
--   * claimed_at: when a consumer or relay claimed the row; a claim older than the 600 s lease
--     is taken over, so a crash never strands a row in 'processing'.
--   * times become integer Unix milliseconds (the original second-resolution text cannot order
--     or schedule sub-second work); the defaults keep a bare INSERT (event_type, payload) working:
--     pending, due now.
--   * processed_events: the per-handler ledger, keyed by (event_id, handler); started_at (ms) is
--     the claim's owner token.
CREATE TABLE event_queue_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
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

INSERT INTO event_queue_new (id, event_id, event_type, payload, status, attempts, created_at,
                             next_attempt_at, claimed_at, last_error)
SELECT id,
       lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
             substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
       event_type,
       payload,
       CASE WHEN status IN ('pending', 'processing', 'done', 'dead_lettered') THEN status ELSE 'pending' END,
       attempts,
       COALESCE(CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
       COALESCE(CAST(ROUND((julianday(next_attempt_at) - 2440587.5) * 86400000) AS INTEGER), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
       CASE WHEN status = 'processing' THEN 0 END,
       last_error
FROM event_queue;

DROP TABLE event_queue;
ALTER TABLE event_queue_new RENAME TO event_queue;

CREATE UNIQUE INDEX idx_event_queue_event_id ON event_queue (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX idx_event_queue_poll ON event_queue (status, next_attempt_at);
CREATE INDEX idx_event_queue_claimed ON event_queue (status, claimed_at) WHERE status = 'processing';

CREATE TABLE processed_events (
    event_id     TEXT NOT NULL,
    handler      TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('in_progress', 'done')),
    started_at   INTEGER NOT NULL,
    processed_at INTEGER,
    PRIMARY KEY (event_id, handler)
) WITHOUT ROWID;
CREATE INDEX idx_processed_events_started ON processed_events (started_at);
