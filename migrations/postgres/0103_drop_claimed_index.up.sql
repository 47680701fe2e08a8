-- The partial index on processing rows cost two b-tree writes per delivered event (claim and
-- settle) to speed up a scan that is already small: processing rows are at most what the live
-- workers have claimed, and idx_event_queue_poll (status, next_attempt_at) finds them by status.
DROP INDEX IF EXISTS idx_event_queue_claimed;
