-- Nothing to do on SQLite. PostgreSQL's twin adds event_queue.enqueued_xact, the inserting
-- transaction's id, for its metrics cursor (EventsSince): its ids come from a sequence and commit
-- out of order. SQLite has one writer at a time, so ids commit in order and its cursor is the id.
SELECT 1;
