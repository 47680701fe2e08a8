-- The outbox records each event's real outcome on every backend (docs/adr/0002-outbox-outcomes.md):
--   * status 'relayed': the relay handed the row to NATS (JetStream PubAck, or a core publish)
--     and waits for the consumer to record 'done' or 'dead_lettered' in the same transaction as
--     its ledger marks. next_attempt_at is then when the relay publishes it again if no outcome
--     has come (the re-relay horizon): a broker that lost the message loses nothing.
--   * relays: how many times the row was handed to NATS. The relay publishes round n > 0 under
--     Nats-Msg-Id "<event id>/<n>", so JetStream's duplicate window drops a repeat of one round
--     (a relay that crashed before recording the handoff) but never a re-relay or an operator's
--     retry.
-- PostgreSQL changes the CHECK constraint in place (SQLite rebuilds the table).
ALTER TABLE event_queue DROP CONSTRAINT event_queue_status_check,
    ADD CONSTRAINT event_queue_status_check CHECK (status IN ('pending', 'processing', 'relayed', 'done', 'dead_lettered')),
    ADD COLUMN relays integer NOT NULL DEFAULT 0;
