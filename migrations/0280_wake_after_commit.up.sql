-- The PostgreSQL twin of this version moves the outbox's wake-up out of the enqueuing
-- transaction. SQLite's workers watch the WAL file for commits and never had a trigger, so
-- nothing changes here; the version exists so that both stores stay at the same one.
SELECT 1;
