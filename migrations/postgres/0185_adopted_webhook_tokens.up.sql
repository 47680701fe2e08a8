-- Nothing to do on PostgreSQL. On SQLite this carries the webhook tokens of a database adopted
-- from the original movies-diary (adopt.go), and adoption reads the original's SQLite file only:
-- a PostgreSQL database is made empty by these migrations, or filled from a SQLite database that
-- already passed this one.
SELECT 1;
