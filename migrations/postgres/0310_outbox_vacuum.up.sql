-- The outbox and the ledger churn: every event inserts an event_queue row and updates it twice or
-- three times (claimed, settled), and inserts then updates a processed_events row per handler.
-- PostgreSQL's default autovacuum waits for a fifth of a table to be dead, which a drain of a
-- large backlog never reaches while it runs: the claim's index scans then walk the dead entries of
-- every row claimed so far (issue 34: 34,500 index entries visited for 100 live rows). Vacuum
-- them after a fixed number of dead rows instead, without the cost-based pauses, and analyze
-- often enough that the planner sees the backlog's shape. A fillfactor leaves room on each page,
-- so an update that changes no indexed column (a claim's extension; the ledger's done mark,
-- whose status and processed_at are not indexed) is a HOT update: no new index entries, less WAL.
ALTER TABLE event_queue SET (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 20000,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0,
    fillfactor = 80
);
ALTER TABLE processed_events SET (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 20000,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0,
    fillfactor = 80
);
