-- event_queue.enqueued_xact: the id of the transaction that inserted the row, set once by its
-- default (outbox.Insert never names the column) and never updated, unlike the row's xmin system
-- column, which every status update changes. The metrics cursor (stats.go, EventsSince) counts
-- the rows whose enqueued_xact lies below its snapshot's xmin: every transaction below that has
-- finished, so those rows are final, and each committed row is counted once, whatever order
-- ids were taken and transactions committed in (ids, a sequence, do not commit in order here).
-- The default is volatile, so existing rows are rewritten with this migration's transaction id
-- and count once, as a fresh process counts every row already in the table.
ALTER TABLE event_queue ADD COLUMN enqueued_xact xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX idx_event_queue_enqueued_xact ON event_queue (enqueued_xact);
