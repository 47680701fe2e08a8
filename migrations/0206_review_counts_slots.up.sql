-- PostgreSQL spreads the instance-wide review counts over 16 rows so that concurrent writers do
-- not queue on one row lock. SQLite has one writer at a time, so its counts stay one row each:
-- nothing to change here (this file keeps the two directories' numbers aligned).
SELECT 1;
