-- Remote reviews (from other instances) have no local user: their user_id is UUIDv5 of the
-- author's actor URL. The foreign key of reviews.user_id on users would refuse them, so the
-- table is rebuilt without it, and two triggers keep what it guaranteed for local reviews: a
-- local review names an existing user, and deleting a user deletes their reviews.
CREATE TABLE reviews_new (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL,
    movie_id         TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    rating           INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment          TEXT,
    watch_medium     TEXT,
    watched_at       TEXT NOT NULL,
    created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    remote_actor_url TEXT,
    ap_id            TEXT
);
INSERT INTO reviews_new (id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at, updated_at,
                         remote_actor_url, ap_id)
SELECT id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at, updated_at, remote_actor_url, ap_id
FROM reviews;
DROP TABLE reviews;
ALTER TABLE reviews_new RENAME TO reviews;

CREATE INDEX idx_reviews_user_watched ON reviews (user_id, watched_at DESC);
CREATE INDEX idx_reviews_movie ON reviews (movie_id, watched_at DESC);
CREATE UNIQUE INDEX idx_reviews_ap_id ON reviews (ap_id) WHERE ap_id IS NOT NULL;
CREATE INDEX idx_reviews_watched ON reviews (watched_at DESC);

CREATE TRIGGER reviews_local_user BEFORE INSERT ON reviews
    WHEN NEW.remote_actor_url IS NULL AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id)
BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;

CREATE TRIGGER users_delete_reviews AFTER DELETE ON users
BEGIN
    DELETE FROM reviews WHERE user_id = OLD.id AND remote_actor_url IS NULL;
END;
