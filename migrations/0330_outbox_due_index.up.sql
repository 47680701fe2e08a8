-- The PostgreSQL twin of this version adds the id to the claim's index. SQLite's indexes end in
-- the rowid (the id) already; the version exists so that both stores stay at the same one.
SELECT 1;
