-- The PostgreSQL twin of this version drops the ledger's started_at index, whose upkeep cost
-- every claim there. SQLite keeps its own (its writes are cheap, and the prune walks it); the
-- version exists so that both stores stay at the same one.
SELECT 1;
