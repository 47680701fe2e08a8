-- PostgreSQL spreads a movie's review stats and a user's review counts over 16 rows so that
-- concurrent reviews of one movie, or by one user, do not queue on one row lock. SQLite has one
-- writer at a time, so they stay one row each: nothing to change here (this file keeps the two
-- directories' numbers aligned).
SELECT 1;
