-- One film, one movie (issue 32 §2): a manual movie found to be a film already stored under its
-- external id is merged into that movie (its reviews, watchlist entries and watch-queue items
-- move), and deleted. Its id then redirects here, so old /movie/{id} links and API ids answer
-- the surviving movie: the movie lookups read this table when no movie has the id. A merge into
-- a movie later merged itself is re-pointed, so a redirect is always one hop. old_external_id
-- is the merged movie's external id, if it had one that the survivor does not hold (an IMDb id
-- merged into a TMDb one): a lookup by it finds the survivor instead of storing the film again.
CREATE TABLE movie_redirects (
    old_id          TEXT PRIMARY KEY,
    new_id          TEXT NOT NULL,
    old_external_id TEXT UNIQUE,
    merged_at       TEXT NOT NULL
);
CREATE INDEX idx_movie_redirects_new ON movie_redirects (new_id);
