-- Nothing to do on PostgreSQL. On SQLite this labels the FollowAccepted events queued before
-- their payload said which way the follow went (data.direction). Every event in a PostgreSQL
-- outbox was written by a build that sets it, or copied from a SQLite database that already
-- passed this migration.
SELECT 1;
