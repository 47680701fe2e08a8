-- Every sort order a paged list of reviews offers (date either way; rating either way, newest
-- viewing first within a rating) has an index per scope (one user, local reviews, all reviews,
-- one movie), so a page reads its rows in order and stops: no page sorts its whole scope. An
-- index read backwards serves the opposite order, except rating ascending with the newest viewing
-- first, which needs its own. The (x, watched_at DESC) indexes they replace are prefixes of these.
DROP INDEX IF EXISTS idx_reviews_user_watched;
DROP INDEX IF EXISTS idx_reviews_movie;
DROP INDEX IF EXISTS idx_reviews_watched;
CREATE INDEX idx_reviews_user_date ON reviews (user_id, watched_at, id);
CREATE INDEX idx_reviews_user_rating ON reviews (user_id, rating, watched_at, id);
CREATE INDEX idx_reviews_user_rating_asc ON reviews (user_id, rating, watched_at DESC, id DESC);
CREATE INDEX idx_reviews_movie_date ON reviews (movie_id, watched_at, id);
CREATE INDEX idx_reviews_date ON reviews (watched_at, id);
CREATE INDEX idx_reviews_rating ON reviews (rating, watched_at, id);
CREATE INDEX idx_reviews_rating_asc ON reviews (rating, watched_at DESC, id DESC);
-- The local ones are partial indexes over local reviews (remote_actor_url IS NULL).
CREATE INDEX idx_reviews_local_date ON reviews (watched_at, id) WHERE remote_actor_url IS NULL;
CREATE INDEX idx_reviews_local_rating ON reviews (rating, watched_at, id) WHERE remote_actor_url IS NULL;
CREATE INDEX idx_reviews_local_rating_asc ON reviews (rating, watched_at DESC, id DESC) WHERE remote_actor_url IS NULL;
