-- PostgreSQL's review counts take a slot per writing transaction instead of per connection, and
-- the functions its review triggers call become PL/pgSQL. SQLite has one writer at a
-- time and plain SQL triggers: nothing to change here (this file keeps the two directories'
-- numbers aligned).
SELECT 1;
