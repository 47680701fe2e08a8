-- The outbox records each event's real outcome on every backend (docs/adr/0002-outbox-outcomes.md):
--   * status 'relayed': the relay handed the row to NATS (JetStream PubAck, or a core publish)
--     and waits for the consumer to record 'done' or 'dead_lettered' in the same transaction as
--     its ledger marks. next_attempt_at is then when the relay publishes it again if no outcome
--     has come (the re-relay horizon): a broker that lost the message loses nothing.
--   * relays: how many times the row was handed to NATS. The relay publishes round n > 0 under
--     Nats-Msg-Id "<event id>/<n>", so JetStream's duplicate window drops a repeat of one round
--     (a relay that crashed before recording the handoff) but never a re-relay or an operator's
--     retry.
-- SQLite cannot change a CHECK constraint in place, so the table is rebuilt, ids kept.
CREATE TABLE event_queue_new (
    id              INTEGER PRIMARY KEY,
    event_id        TEXT,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'processing', 'relayed', 'done', 'dead_lettered')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
    next_attempt_at INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)),
    claimed_at      INTEGER,
    last_error      TEXT,
    relays          INTEGER NOT NULL DEFAULT 0
);
INSERT INTO event_queue_new (id, event_id, event_type, payload, status, attempts, created_at, next_attempt_at,
                             claimed_at, last_error)
SELECT id, event_id, event_type, payload, status, attempts, created_at, next_attempt_at, claimed_at, last_error
FROM event_queue;
DROP TABLE event_queue;
ALTER TABLE event_queue_new RENAME TO event_queue;
CREATE UNIQUE INDEX idx_event_queue_event_id ON event_queue (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX idx_event_queue_poll ON event_queue (status, next_attempt_at);
