-- A hand-typed movie is matched on title (without case) and year, oldest first. Without
-- created_at in the index every match sorted its rows; with it the index answers the ORDER BY.
DROP INDEX IF EXISTS idx_movies_title_year;
CREATE INDEX idx_movies_title_year ON movies (lower(title), release_year, created_at);
