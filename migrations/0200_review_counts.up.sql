-- Paged reads report an exact total_count (the original's clients scroll by it). Counting the
-- rows of every page scanned the whole scope, all reviews for the feed, so the counts are kept
-- here instead, by triggers on reviews: every statement that inserts, deletes or moves a review
-- updates them in its own transaction, whatever code runs it (including foreign-key cascades).
-- scope is 'all' (key ''), 'local' (key '', reviews with no remote actor), 'user' and
-- 'user_local' (key a user id). A movie's counts are its row of movie_review_stats below.
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
UNION ALL SELECT 'user_local', user_id, count(*) FROM reviews WHERE remote_actor_url IS NULL GROUP BY user_id;

CREATE TRIGGER review_counts_insert AFTER INSERT ON reviews BEGIN
    INSERT INTO review_counts (scope, key, n) VALUES ('all', '', 1), ('user', NEW.user_id, 1)
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    INSERT INTO review_counts (scope, key, n)
        SELECT 'local', '', 1 WHERE NEW.remote_actor_url IS NULL
        UNION ALL SELECT 'user_local', NEW.user_id, 1 WHERE NEW.remote_actor_url IS NULL
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER review_counts_delete AFTER DELETE ON reviews BEGIN
    UPDATE review_counts SET n = n - 1 WHERE scope = 'all' AND key = '';
    UPDATE review_counts SET n = n - 1 WHERE scope = 'user' AND key = OLD.user_id;
    UPDATE review_counts SET n = n - 1 WHERE OLD.remote_actor_url IS NULL AND scope = 'local' AND key = '';
    UPDATE review_counts SET n = n - 1 WHERE OLD.remote_actor_url IS NULL AND scope = 'user_local' AND key = OLD.user_id;
    DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = OLD.user_id AND n = 0;
END;

CREATE TRIGGER review_counts_update AFTER UPDATE OF user_id, remote_actor_url ON reviews
WHEN OLD.user_id IS NOT NEW.user_id OR (OLD.remote_actor_url IS NULL) IS NOT (NEW.remote_actor_url IS NULL) BEGIN
    UPDATE review_counts SET n = n - 1 WHERE scope = 'user' AND key = OLD.user_id;
    UPDATE review_counts SET n = n - 1 WHERE OLD.remote_actor_url IS NULL AND scope = 'local' AND key = '';
    UPDATE review_counts SET n = n - 1 WHERE OLD.remote_actor_url IS NULL AND scope = 'user_local' AND key = OLD.user_id;
    INSERT INTO review_counts (scope, key, n) VALUES ('user', NEW.user_id, 1)
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    INSERT INTO review_counts (scope, key, n)
        SELECT 'local', '', 1 WHERE NEW.remote_actor_url IS NULL
        UNION ALL SELECT 'user_local', NEW.user_id, 1 WHERE NEW.remote_actor_url IS NULL
        ON CONFLICT (scope, key) DO UPDATE SET n = n + 1;
    DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = OLD.user_id AND n = 0;
END;

-- A movie page shows its reviews' count, average, federated count and histogram: kept here the
-- same way, so the page costs the same for a movie reviewed twice and one reviewed ten thousand
-- times.
CREATE TABLE movie_review_stats (
    movie_id   TEXT PRIMARY KEY,
    n          INTEGER NOT NULL,
    federated  INTEGER NOT NULL,
    rating_sum INTEGER NOT NULL,
    r1         INTEGER NOT NULL,
    r2         INTEGER NOT NULL,
    r3         INTEGER NOT NULL,
    r4         INTEGER NOT NULL,
    r5         INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO movie_review_stats (movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5)
SELECT movie_id, count(*), count(remote_actor_url), sum(rating), count(*) FILTER (WHERE rating = 1),
       count(*) FILTER (WHERE rating = 2), count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4),
       count(*) FILTER (WHERE rating = 5)
FROM reviews GROUP BY movie_id;

CREATE TRIGGER movie_review_stats_insert AFTER INSERT ON reviews BEGIN
    INSERT INTO movie_review_stats (movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5)
        VALUES (NEW.movie_id, 1, NEW.remote_actor_url IS NOT NULL, NEW.rating, NEW.rating = 1, NEW.rating = 2,
                NEW.rating = 3, NEW.rating = 4, NEW.rating = 5)
        ON CONFLICT (movie_id) DO UPDATE SET n = n + 1, federated = federated + excluded.federated,
            rating_sum = rating_sum + excluded.rating_sum, r1 = r1 + excluded.r1, r2 = r2 + excluded.r2,
            r3 = r3 + excluded.r3, r4 = r4 + excluded.r4, r5 = r5 + excluded.r5;
END;

CREATE TRIGGER movie_review_stats_delete AFTER DELETE ON reviews BEGIN
    UPDATE movie_review_stats SET n = n - 1, federated = federated - (OLD.remote_actor_url IS NOT NULL),
        rating_sum = rating_sum - OLD.rating, r1 = r1 - (OLD.rating = 1), r2 = r2 - (OLD.rating = 2),
        r3 = r3 - (OLD.rating = 3), r4 = r4 - (OLD.rating = 4), r5 = r5 - (OLD.rating = 5)
        WHERE movie_id = OLD.movie_id;
    DELETE FROM movie_review_stats WHERE movie_id = OLD.movie_id AND n = 0;
END;

CREATE TRIGGER movie_review_stats_update AFTER UPDATE OF movie_id, rating, remote_actor_url ON reviews
WHEN OLD.movie_id IS NOT NEW.movie_id OR OLD.rating IS NOT NEW.rating
  OR (OLD.remote_actor_url IS NULL) IS NOT (NEW.remote_actor_url IS NULL) BEGIN
    UPDATE movie_review_stats SET n = n - 1, federated = federated - (OLD.remote_actor_url IS NOT NULL),
        rating_sum = rating_sum - OLD.rating, r1 = r1 - (OLD.rating = 1), r2 = r2 - (OLD.rating = 2),
        r3 = r3 - (OLD.rating = 3), r4 = r4 - (OLD.rating = 4), r5 = r5 - (OLD.rating = 5)
        WHERE movie_id = OLD.movie_id;
    DELETE FROM movie_review_stats WHERE movie_id = OLD.movie_id AND n = 0;
    INSERT INTO movie_review_stats (movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5)
        VALUES (NEW.movie_id, 1, NEW.remote_actor_url IS NOT NULL, NEW.rating, NEW.rating = 1, NEW.rating = 2,
                NEW.rating = 3, NEW.rating = 4, NEW.rating = 5)
        ON CONFLICT (movie_id) DO UPDATE SET n = n + 1, federated = federated + excluded.federated,
            rating_sum = rating_sum + excluded.rating_sum, r1 = r1 + excluded.r1, r2 = r2 + excluded.r2,
            r3 = r3 + excluded.r3, r4 = r4 + excluded.r4, r5 = r5 + excluded.r5;
END;
