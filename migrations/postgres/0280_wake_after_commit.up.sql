-- The outbox no longer notifies from inside the enqueuing transaction: PostgreSQL serialises the
-- commits of notifying transactions on one cluster-wide lock held until their WAL flush, so every
-- producer waited on every other (issue 34). The store sends pg_notify('moviesdiary_outbox') after
-- the commit instead (internal/adapters/postgres/wake.go,
-- docs/adr/0008-postgresql-wakes-after-the-commit.md); a writer that is not this code wakes the
-- workers within their 1 s poll.
DROP TRIGGER IF EXISTS event_queue_notify ON event_queue;
DROP FUNCTION IF EXISTS event_queue_notify();
