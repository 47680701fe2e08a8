-- The PostgreSQL twin of this version sets per-table autovacuum and fillfactor for the outbox and
-- the ledger. SQLite has neither; the version exists so that both stores stay at the same one.
SELECT 1;
