-- Turns event_queue into the transactional outbox (see the outbox decision record):
--   * event_id: a UUID, unique when set; every existing row is backfilled with a random one so
--     legacy rows get dedup too. NULL stays allowed for rows from foreign writers (no dedup).
--   * claimed_at: when a consumer or relay claimed the row; a claim older than the 600 s lease
--     is taken over, so a crash never strands a row in 'processing'.
--   * times become integer Unix milliseconds; the defaults keep a bare INSERT (event_type,
--     payload) working: pending, due now.
--   * processed_events: the per-handler ledger, keyed by (event_id, handler); started_at (ms) is
--     the claim's owner token.
ALTER TABLE event_queue ADD COLUMN event_id text, ADD COLUMN claimed_at bigint;
UPDATE event_queue SET event_id = gen_random_uuid()::text,
    status = CASE WHEN status IN ('pending', 'processing', 'done', 'dead_lettered') THEN status ELSE 'pending' END,
    claimed_at = CASE WHEN status = 'processing' THEN 0 END;
ALTER TABLE event_queue
    ALTER COLUMN created_at DROP DEFAULT,
    ALTER COLUMN created_at TYPE bigint USING floor(extract(epoch FROM created_at::timestamptz) * 1000)::bigint,
    ALTER COLUMN created_at SET DEFAULT floor(extract(epoch FROM now()) * 1000)::bigint,
    ALTER COLUMN next_attempt_at DROP DEFAULT,
    ALTER COLUMN next_attempt_at TYPE bigint USING floor(extract(epoch FROM next_attempt_at::timestamptz) * 1000)::bigint,
    ALTER COLUMN next_attempt_at SET DEFAULT floor(extract(epoch FROM now()) * 1000)::bigint,
    ADD CONSTRAINT event_queue_status_check CHECK (status IN ('pending', 'processing', 'done', 'dead_lettered'));

CREATE UNIQUE INDEX idx_event_queue_event_id ON event_queue (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX idx_event_queue_claimed ON event_queue (status, claimed_at) WHERE status = 'processing';

CREATE TABLE processed_events (
    event_id     text NOT NULL,
    handler      text NOT NULL,
    status       text NOT NULL CHECK (status IN ('in_progress', 'done')),
    started_at   bigint NOT NULL,
    processed_at bigint,
    PRIMARY KEY (event_id, handler)
);
CREATE INDEX idx_processed_events_started ON processed_events (started_at);

-- Every statement that inserts outbox rows notifies the queues' LISTEN channel. PostgreSQL
-- delivers a notification at the commit (never for a rollback) and once per transaction for the
-- same channel and payload, however many statements inserted; foreign writers' rows wake the
-- workers too. The channel name is the postgres adapter's notifyChannel.
CREATE FUNCTION event_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('moviesdiary_outbox', '');
    RETURN NULL;
END $$;
CREATE TRIGGER event_queue_notify AFTER INSERT ON event_queue
    FOR EACH STATEMENT EXECUTE FUNCTION event_queue_notify();
