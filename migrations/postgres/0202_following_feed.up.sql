-- The home page's "following" tab lists the reviews of the people a local user follows (accepted
-- follows of local users, whose local reviews count, and of remote actors, whose reviews the
-- store keeps). Merging the followed authors' reviews at read time sorts all of them for every
-- page; instead each follower's feed is kept here, one row per (follower, review), by triggers on
-- reviews and follows: every statement that writes either keeps it exact in its own transaction,
-- whatever code runs it (a review logged, edited, imported, deleted or cascaded away; a follow
-- accepted, answered, moved, removed or blocked). A page is then a walk of the primary key.
-- author is the follow's target_id: a local user id or a remote actor URL.
CREATE TABLE following_feed (
    owner_id   text NOT NULL,
    watched_at text NOT NULL,
    review_id  text NOT NULL,
    author     text NOT NULL,
    PRIMARY KEY (owner_id, watched_at, review_id)
);
CREATE INDEX idx_following_feed_review ON following_feed (review_id);
CREATE INDEX idx_following_feed_author ON following_feed (owner_id, author);

-- A remote actor's reviews, read when a follow of them is accepted (and when they are deleted).
CREATE INDEX IF NOT EXISTS idx_reviews_remote_actor ON reviews (remote_actor_url) WHERE remote_actor_url IS NOT NULL;

INSERT INTO following_feed (owner_id, watched_at, review_id, author)
SELECT f.follower_id, r.watched_at, r.id, f.target_id FROM follows f JOIN reviews r
    ON (f.target_kind = 'local' AND r.user_id = f.target_id AND r.remote_actor_url IS NULL)
    OR (f.target_kind = 'remote' AND r.remote_actor_url = f.target_id)
WHERE f.follower_kind = 'local' AND f.status = 'accepted'
ON CONFLICT DO NOTHING;

-- Its total per follower is review_counts' scope 'following' (key: the follower's id).
INSERT INTO review_counts (scope, key, n)
SELECT 'following', owner_id, count(*) FROM following_feed GROUP BY owner_id;

CREATE FUNCTION following_feed_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO review_counts (scope, key, n) VALUES ('following', NEW.owner_id, 1)
            ON CONFLICT (scope, key) DO UPDATE SET n = review_counts.n + 1;
    ELSE
        UPDATE review_counts SET n = n - 1 WHERE scope = 'following' AND key = OLD.owner_id;
        DELETE FROM review_counts WHERE scope = 'following' AND key = OLD.owner_id AND n = 0;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER following_feed_count_insert AFTER INSERT ON following_feed FOR EACH ROW
    EXECUTE FUNCTION following_feed_count();
CREATE TRIGGER following_feed_count_delete AFTER DELETE ON following_feed FOR EACH ROW
    EXECUTE FUNCTION following_feed_count();

-- following_feed_fan_out puts review p_review (by p_author: a local user id or a remote actor
-- URL, p_local telling which) into the feed of every local follower of its author.
CREATE FUNCTION following_feed_fan_out(p_review text, p_watched text, p_author text, p_local boolean) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT f.follower_id, p_watched, p_review, f.target_id FROM follows f
    WHERE f.target_kind = CASE WHEN p_local THEN 'local' ELSE 'remote' END
      AND f.target_id = p_author AND f.status = 'accepted' AND f.follower_kind = 'local'
    ON CONFLICT DO NOTHING;
$$;

-- A new review reaches every local follower of its author; a deleted one leaves every feed; a
-- review whose date or author changes is taken out and fanned out again.
CREATE FUNCTION following_feed_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM following_feed WHERE review_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM following_feed_fan_out(NEW.id, NEW.watched_at, coalesce(NEW.remote_actor_url, NEW.user_id),
            NEW.remote_actor_url IS NULL);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER following_feed_review_insert AFTER INSERT ON reviews FOR EACH ROW
    EXECUTE FUNCTION following_feed_review();
CREATE TRIGGER following_feed_review_delete AFTER DELETE ON reviews FOR EACH ROW
    EXECUTE FUNCTION following_feed_review();
CREATE TRIGGER following_feed_review_update AFTER UPDATE OF id, user_id, watched_at, remote_actor_url ON reviews FOR EACH ROW
    WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.user_id IS DISTINCT FROM NEW.user_id
          OR OLD.watched_at IS DISTINCT FROM NEW.watched_at OR OLD.remote_actor_url IS DISTINCT FROM NEW.remote_actor_url)
    EXECUTE FUNCTION following_feed_review();

-- following_feed_follow_add brings the reviews of a follow's target into its local follower's feed.
CREATE FUNCTION following_feed_follow_add(p_follower text, p_target_kind text, p_target text) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT p_follower, r.watched_at, r.id, p_target FROM reviews r
    WHERE p_target_kind = 'local' AND r.user_id = p_target AND r.remote_actor_url IS NULL
    ON CONFLICT DO NOTHING;
    INSERT INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT p_follower, r.watched_at, r.id, p_target FROM reviews r
    WHERE p_target_kind = 'remote' AND r.remote_actor_url = p_target
    ON CONFLICT DO NOTHING;
$$;

-- An accepted follow brings the author's reviews; a follow that ends (or goes back to pending)
-- takes them away.
CREATE FUNCTION following_feed_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.follower_kind = 'local' AND OLD.status = 'accepted' THEN
        DELETE FROM following_feed WHERE owner_id = OLD.follower_id AND author = OLD.target_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.follower_kind = 'local' AND NEW.status = 'accepted' THEN
        PERFORM following_feed_follow_add(NEW.follower_id, NEW.target_kind, NEW.target_id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER following_feed_follow_insert AFTER INSERT ON follows FOR EACH ROW
    WHEN (NEW.follower_kind = 'local' AND NEW.status = 'accepted')
    EXECUTE FUNCTION following_feed_follow();
CREATE TRIGGER following_feed_follow_delete AFTER DELETE ON follows FOR EACH ROW
    WHEN (OLD.follower_kind = 'local' AND OLD.status = 'accepted')
    EXECUTE FUNCTION following_feed_follow();
CREATE TRIGGER following_feed_follow_update AFTER UPDATE ON follows FOR EACH ROW
    WHEN (OLD.follower_kind = 'local' OR NEW.follower_kind = 'local')
    EXECUTE FUNCTION following_feed_follow();
