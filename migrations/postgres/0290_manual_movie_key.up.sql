-- A film typed in by hand has no external id to be unique on: manual_key (domain.ManualMovieKey:
-- folded title, year and director, computed by the application so both stores fold alike) is,
-- for the movies that have one (issue 33). Movies stored before this version have none; the
-- worker's manual-movie-keys job keys them and merges each twin into the first of its kind.
ALTER TABLE movies ADD COLUMN manual_key TEXT;
CREATE UNIQUE INDEX idx_movies_manual_key ON movies (manual_key) WHERE manual_key IS NOT NULL;
