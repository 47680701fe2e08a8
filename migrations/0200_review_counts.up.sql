-- Paged reads report an exact total_count (the original's clients scroll by it). Counting the
-- rows of every page scanned the whole scope, all reviews for the feed, so the counts are kept
-- here instead, by triggers on reviews: every statement that inserts, deletes or moves a review
-- updates them in its own transaction, whatever code runs it (including foreign-key cascades).
-- scope is 'all' (key ''), 'local' (key '', reviews with no remote actor), 'user' and
-- 'user_local' (key a user id) and 'movie' (key a movie id).
CREATE TABLE review_counts (
    scope TEXT    NOT NULL,
    key   TEXT    NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
) WITHOUT ROWID;

INSERT INTO review_counts (scope, key, n)
SELECT 'all', '', count(*) FROM reviews
UNION ALL SELECT 'local', '', count(*) FROM reviews WHERE remote_actor_url IS NULL
UNION ALL SELECT 'user', user_id, count(*) FROM reviews GROUP BY user_id
UNION ALL SELECT 'user_local', user_id, count(*) FROM reviews WHERE remote_actor_url IS NULL GROUP BY user_id
UNION ALL SELECT 'movie', movie_id, count(*) FROM reviews GROUP BY movie_id;

CREATE TRIGGER review_counts_insert AFTER INSERT ON reviews BEGIN
    INSERT INTO review_counts (scope, key, n) VALUES ('all', '', 1), ('user', NEW.user_id, 1), ('movie', NEW.movie_id, 1)
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    INSERT INTO review_counts (scope, key, n)
        SELECT 'local', '', 1 WHERE NEW.remote_actor_url IS NULL
        UNION ALL SELECT 'user_local', NEW.user_id, 1 WHERE NEW.remote_actor_url IS NULL
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER review_counts_delete AFTER DELETE ON reviews BEGIN
    UPDATE review_counts SET n = n - 1
        WHERE (scope, key) IN (VALUES ('all', ''), ('user', OLD.user_id), ('movie', OLD.movie_id))
           OR OLD.remote_actor_url IS NULL AND (scope, key) IN (VALUES ('local', ''), ('user_local', OLD.user_id));
    DELETE FROM review_counts WHERE n = 0 AND scope IN ('user', 'user_local', 'movie')
        AND key IN (OLD.user_id, OLD.movie_id);
END;

CREATE TRIGGER review_counts_update AFTER UPDATE OF user_id, movie_id, remote_actor_url ON reviews
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.movie_id IS NOT NEW.movie_id
  OR (OLD.remote_actor_url IS NULL) IS NOT (NEW.remote_actor_url IS NULL) BEGIN
    UPDATE review_counts SET n = n - 1
        WHERE (scope, key) IN (VALUES ('user', OLD.user_id), ('movie', OLD.movie_id))
           OR OLD.remote_actor_url IS NULL AND (scope, key) IN (VALUES ('local', ''), ('user_local', OLD.user_id));
    INSERT INTO review_counts (scope, key, n) VALUES ('user', NEW.user_id, 1), ('movie', NEW.movie_id, 1)
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    INSERT INTO review_counts (scope, key, n)
        SELECT 'local', '', 1 WHERE NEW.remote_actor_url IS NULL
        UNION ALL SELECT 'user_local', NEW.user_id, 1 WHERE NEW.remote_actor_url IS NULL
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    DELETE FROM review_counts WHERE n = 0 AND scope IN ('user', 'user_local', 'movie')
        AND key IN (OLD.user_id, OLD.movie_id);
END;
