-- History a database adopted from the original movies-diary carried runs on the worker's
-- retention clocks from the adoption (adopted_at; NULL: written here): the federation pruner
-- keeps carried inbound ids for good, the wrap-up reaper counts a carried wrap-up's day and
-- week from the adoption. Adoption reads the original's SQLite file only, so on PostgreSQL the
-- columns stay NULL; they exist so both stores run the same pruning statements.
ALTER TABLE inbox_activities ADD COLUMN adopted_at bigint; -- Unix ms
ALTER TABLE wrapups ADD COLUMN adopted_at text;
