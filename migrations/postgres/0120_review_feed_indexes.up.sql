-- The feeds (/feed.rss, /users/{id}/feed.rss and the Atom variants) read the newest local
-- reviews by when they were logged: without these, each request would sort every review.
CREATE INDEX idx_reviews_local_created ON reviews (created_at DESC, id DESC) WHERE remote_actor_url IS NULL;
CREATE INDEX idx_reviews_user_created ON reviews (user_id, created_at DESC, id DESC);
