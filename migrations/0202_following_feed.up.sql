-- The home page's "following" tab lists the reviews of the people a local user follows (accepted
-- follows of local users, whose local reviews count, and of remote actors, whose reviews the
-- store keeps). Merging the followed authors' reviews at read time sorts all of them for every
-- page; instead each follower's feed is kept here, one row per (follower, review), by triggers on
-- reviews and follows: every statement that writes either keeps it exact in its own transaction,
-- whatever code runs it (a review logged, edited, imported, deleted or cascaded away; a follow
-- accepted, answered, moved, removed or blocked). A page is then a walk of the primary key.
-- author is the follow's target_id: a local user id or a remote actor URL.
CREATE TABLE following_feed (
    owner_id   TEXT NOT NULL,
    watched_at TEXT NOT NULL,
    review_id  TEXT NOT NULL,
    author     TEXT NOT NULL,
    PRIMARY KEY (owner_id, watched_at, review_id)
) WITHOUT ROWID;
CREATE INDEX idx_following_feed_review ON following_feed (review_id);
CREATE INDEX idx_following_feed_author ON following_feed (owner_id, author);

-- A remote actor's reviews, read when a follow of them is accepted (and when they are deleted).
CREATE INDEX IF NOT EXISTS idx_reviews_remote_actor ON reviews (remote_actor_url) WHERE remote_actor_url IS NOT NULL;

INSERT INTO following_feed (owner_id, watched_at, review_id, author)
SELECT f.follower_id, r.watched_at, r.id, f.target_id FROM follows f JOIN reviews r
    ON (f.target_kind = 'local' AND r.user_id = f.target_id AND r.remote_actor_url IS NULL)
    OR (f.target_kind = 'remote' AND r.remote_actor_url = f.target_id)
WHERE f.follower_kind = 'local' AND f.status = 'accepted';

-- Its total per follower is review_counts' scope 'following' (key: the follower's id).
INSERT INTO review_counts (scope, key, n)
SELECT 'following', owner_id, count(*) FROM following_feed GROUP BY owner_id;

CREATE TRIGGER following_feed_count_insert AFTER INSERT ON following_feed BEGIN
    INSERT INTO review_counts (scope, key, n) VALUES ('following', NEW.owner_id, 1)
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER following_feed_count_delete AFTER DELETE ON following_feed BEGIN
    UPDATE review_counts SET n = n - 1 WHERE scope = 'following' AND key = OLD.owner_id;
    DELETE FROM review_counts WHERE scope = 'following' AND key = OLD.owner_id AND n = 0;
END;

-- A new review reaches every local follower of its author.
CREATE TRIGGER following_feed_review_insert AFTER INSERT ON reviews BEGIN
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT f.follower_id, NEW.watched_at, NEW.id, f.target_id FROM follows f
    WHERE f.target_kind = iif(NEW.remote_actor_url IS NULL, 'local', 'remote')
      AND f.target_id = coalesce(NEW.remote_actor_url, NEW.user_id)
      AND f.status = 'accepted' AND f.follower_kind = 'local';
END;

CREATE TRIGGER following_feed_review_delete AFTER DELETE ON reviews BEGIN
    DELETE FROM following_feed WHERE review_id = OLD.id;
END;

-- A review whose date or author changes is taken out and fanned out again.
CREATE TRIGGER following_feed_review_update AFTER UPDATE OF id, user_id, watched_at, remote_actor_url ON reviews
WHEN OLD.id IS NOT NEW.id OR OLD.user_id IS NOT NEW.user_id OR OLD.watched_at IS NOT NEW.watched_at
    OR OLD.remote_actor_url IS NOT NEW.remote_actor_url BEGIN
    DELETE FROM following_feed WHERE review_id = OLD.id;
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT f.follower_id, NEW.watched_at, NEW.id, f.target_id FROM follows f
    WHERE f.target_kind = iif(NEW.remote_actor_url IS NULL, 'local', 'remote')
      AND f.target_id = coalesce(NEW.remote_actor_url, NEW.user_id)
      AND f.status = 'accepted' AND f.follower_kind = 'local';
END;

-- An accepted follow brings the author's reviews; a follow that ends (or goes back to pending)
-- takes them away.
CREATE TRIGGER following_feed_follow_insert AFTER INSERT ON follows
WHEN NEW.follower_kind = 'local' AND NEW.status = 'accepted' BEGIN
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT NEW.follower_id, r.watched_at, r.id, NEW.target_id FROM reviews r
    WHERE NEW.target_kind = 'local' AND r.user_id = NEW.target_id AND r.remote_actor_url IS NULL;
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT NEW.follower_id, r.watched_at, r.id, NEW.target_id FROM reviews r
    WHERE NEW.target_kind = 'remote' AND r.remote_actor_url = NEW.target_id;
END;

CREATE TRIGGER following_feed_follow_delete AFTER DELETE ON follows
WHEN OLD.follower_kind = 'local' AND OLD.status = 'accepted' BEGIN
    DELETE FROM following_feed WHERE owner_id = OLD.follower_id AND author = OLD.target_id;
END;

CREATE TRIGGER following_feed_follow_update AFTER UPDATE ON follows
WHEN OLD.follower_kind = 'local' OR NEW.follower_kind = 'local' BEGIN
    DELETE FROM following_feed WHERE OLD.follower_kind = 'local' AND OLD.status = 'accepted'
        AND owner_id = OLD.follower_id AND author = OLD.target_id;
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT NEW.follower_id, r.watched_at, r.id, NEW.target_id FROM reviews r
    WHERE NEW.follower_kind = 'local' AND NEW.status = 'accepted'
      AND NEW.target_kind = 'local' AND r.user_id = NEW.target_id AND r.remote_actor_url IS NULL;
    INSERT OR IGNORE INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT NEW.follower_id, r.watched_at, r.id, NEW.target_id FROM reviews r
    WHERE NEW.follower_kind = 'local' AND NEW.status = 'accepted'
      AND NEW.target_kind = 'remote' AND r.remote_actor_url = NEW.target_id;
END;
