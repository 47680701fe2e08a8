-- processed_events.started_at, the claim's owner token, is read by its primary key (a claim, its
-- renewal, its done mark) and by range only in the ledger's pruning, once a day. Its index cost
-- every handler of every event an index entry at the claim and another at each renewal, and kept
-- the renewal from being a HOT update (issue 34: a tenth of the drain's WAL records). The daily
-- prune scans the table instead.
DROP INDEX IF EXISTS idx_processed_events_started;
