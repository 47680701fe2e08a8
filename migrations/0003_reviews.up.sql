-- Reviews from other instances carry their author's actor URL and ActivityPub id; a NULL
-- remote_actor_url is a local review.
ALTER TABLE reviews ADD COLUMN remote_actor_url TEXT;
ALTER TABLE reviews ADD COLUMN ap_id TEXT;
CREATE UNIQUE INDEX idx_reviews_ap_id ON reviews (ap_id) WHERE ap_id IS NOT NULL;
CREATE INDEX idx_reviews_watched ON reviews (watched_at DESC);

-- Movie fields the enrichment fills; genres is a JSON array of names.
ALTER TABLE movies ADD COLUMN genres TEXT NOT NULL DEFAULT '[]';
ALTER TABLE movies ADD COLUMN runtime_minutes INTEGER;
ALTER TABLE movies ADD COLUMN original_language TEXT;
ALTER TABLE movies ADD COLUMN overview TEXT;
ALTER TABLE movies ADD COLUMN collection_name TEXT;

-- Idempotency-Key of POST /api/v1/reviews: the first request's result, per user and key.
-- request_hash tells a retry (same body) from a key reused for another request.
CREATE TABLE idempotency_keys (
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    review_id    TEXT NOT NULL,
    created_at   INTEGER NOT NULL, -- Unix ms
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;
