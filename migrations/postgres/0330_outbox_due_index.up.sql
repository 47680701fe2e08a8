-- The claim takes the due rows of a status in (next_attempt_at, id) order, LIMIT a batch. The
-- index it had, (status, next_attempt_at), leaves the id out: a backlog enqueued within the same
-- milliseconds shares next_attempt_at values, so PostgreSQL read every due row of the status and
-- sorted them for each claim — a claim's cost grew with the backlog (issue 34: 7.3 ms a call at
-- 10,000 pending rows, 21 ms at 100,000). With the id in the index the scan is already in the
-- claim's order and stops after the batch. (SQLite's indexes end in the rowid, which is the id,
-- so its claim never had this.) The new index also serves the counts by status.
CREATE INDEX idx_event_queue_due ON event_queue (status, next_attempt_at, id);
DROP INDEX IF EXISTS idx_event_queue_poll;
