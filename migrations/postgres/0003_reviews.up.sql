-- Reviews from other instances carry their author's actor URL and ActivityPub id; a NULL
-- remote_actor_url is a local review.
ALTER TABLE reviews ADD COLUMN remote_actor_url text;
ALTER TABLE reviews ADD COLUMN ap_id text;
CREATE UNIQUE INDEX idx_reviews_ap_id ON reviews (ap_id) WHERE ap_id IS NOT NULL;
CREATE INDEX idx_reviews_watched ON reviews (watched_at DESC);

-- Movie fields the enrichment fills; genres is a JSON array of names (text, as on SQLite).
ALTER TABLE movies ADD COLUMN genres text NOT NULL DEFAULT '[]';
ALTER TABLE movies ADD COLUMN runtime_minutes integer;
ALTER TABLE movies ADD COLUMN original_language text;
ALTER TABLE movies ADD COLUMN overview text;
ALTER TABLE movies ADD COLUMN collection_name text;

-- Idempotency-Key of POST /api/v1/reviews: the first request's result, per user and key.
-- request_hash tells a retry (same body) from a key reused for another request.
CREATE TABLE idempotency_keys (
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          text NOT NULL,
    request_hash text NOT NULL,
    review_id    text NOT NULL,
    created_at   bigint NOT NULL, -- Unix ms
    PRIMARY KEY (user_id, key)
);
