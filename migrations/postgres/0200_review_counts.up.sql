-- Paged reads report an exact total_count (the original's clients scroll by it). Counting the
-- rows of every page scanned the whole scope, all reviews for the feed, so the counts are kept
-- here instead, by triggers on reviews: every statement that inserts, deletes or moves a review
-- updates them in its own transaction, whatever code runs it (including foreign-key cascades).
-- scope is 'all' (key ''), 'local' (key '', reviews with no remote actor), 'user' and
-- 'user_local' (key a user id). A movie's counts are its row of movie_review_stats below.
--
-- On PostgreSQL concurrent writers serialise on the counter rows they touch (the 'all' row for
-- every review write) until they commit. Inserts and deletes take the rows in one order ('all',
-- 'local', then the user's), so they never deadlock one another; only two moves of reviews
-- between the same two users in opposite directions can, and PostgreSQL aborts one of them.
CREATE TABLE review_counts (
    scope text   NOT NULL,
    key   text   NOT NULL,
    n     bigint NOT NULL,
    PRIMARY KEY (scope, key)
);

INSERT INTO review_counts (scope, key, n)
SELECT 'all', '', count(*) FROM reviews
UNION ALL SELECT 'local', '', count(*) FROM reviews WHERE remote_actor_url IS NULL
UNION ALL SELECT 'user', user_id, count(*) FROM reviews GROUP BY user_id
UNION ALL SELECT 'user_local', user_id, count(*) FROM reviews WHERE remote_actor_url IS NULL GROUP BY user_id;

-- review_counts_add adds d to the counts a review of user_id (local or not) is in.
CREATE FUNCTION review_counts_add(p_user text, p_local boolean, p_d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO review_counts (scope, key, n)
    SELECT s.scope, s.key, p_d FROM (VALUES (1, 'all', ''), (2, 'local', ''), (3, 'user', p_user), (4, 'user_local', p_user))
        AS s (ord, scope, key)
    WHERE p_local OR s.scope IN ('all', 'user')
    ORDER BY s.ord
    ON CONFLICT (scope, key) DO UPDATE SET n = review_counts.n + excluded.n;
    DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = p_user AND n = 0;
$$;

CREATE FUNCTION review_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM review_counts_add(OLD.user_id, OLD.remote_actor_url IS NULL, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM review_counts_add(NEW.user_id, NEW.remote_actor_url IS NULL, 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER review_counts_insert AFTER INSERT ON reviews FOR EACH ROW EXECUTE FUNCTION review_counts();
CREATE TRIGGER review_counts_delete AFTER DELETE ON reviews FOR EACH ROW EXECUTE FUNCTION review_counts();
CREATE TRIGGER review_counts_update AFTER UPDATE OF user_id, remote_actor_url ON reviews FOR EACH ROW
    WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR (OLD.remote_actor_url IS NULL) <> (NEW.remote_actor_url IS NULL))
    EXECUTE FUNCTION review_counts();

-- A movie page shows its reviews' count, average, federated count and histogram: kept here the
-- same way, so the page costs the same for a movie reviewed twice and one reviewed ten thousand
-- times.
CREATE TABLE movie_review_stats (
    movie_id   text PRIMARY KEY,
    n          bigint NOT NULL,
    federated  bigint NOT NULL,
    rating_sum bigint NOT NULL,
    r1         bigint NOT NULL,
    r2         bigint NOT NULL,
    r3         bigint NOT NULL,
    r4         bigint NOT NULL,
    r5         bigint NOT NULL
);

INSERT INTO movie_review_stats (movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5)
SELECT movie_id, count(*), count(remote_actor_url), sum(rating), count(*) FILTER (WHERE rating = 1),
       count(*) FILTER (WHERE rating = 2), count(*) FILTER (WHERE rating = 3), count(*) FILTER (WHERE rating = 4),
       count(*) FILTER (WHERE rating = 5)
FROM reviews GROUP BY movie_id;

-- movie_review_stats_add adds d reviews of movie_id with rating (federated or not) to its stats.
CREATE FUNCTION movie_review_stats_add(p_movie text, p_rating integer, p_federated boolean, p_d integer) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO movie_review_stats (movie_id, n, federated, rating_sum, r1, r2, r3, r4, r5)
    VALUES (p_movie, p_d, p_d * p_federated::int, p_d * p_rating, p_d * (p_rating = 1)::int, p_d * (p_rating = 2)::int,
            p_d * (p_rating = 3)::int, p_d * (p_rating = 4)::int, p_d * (p_rating = 5)::int)
    ON CONFLICT (movie_id) DO UPDATE SET n = movie_review_stats.n + excluded.n,
        federated = movie_review_stats.federated + excluded.federated,
        rating_sum = movie_review_stats.rating_sum + excluded.rating_sum,
        r1 = movie_review_stats.r1 + excluded.r1, r2 = movie_review_stats.r2 + excluded.r2,
        r3 = movie_review_stats.r3 + excluded.r3, r4 = movie_review_stats.r4 + excluded.r4,
        r5 = movie_review_stats.r5 + excluded.r5;
    DELETE FROM movie_review_stats WHERE movie_id = p_movie AND n = 0;
$$;

CREATE FUNCTION movie_review_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM movie_review_stats_add(OLD.movie_id, OLD.rating, OLD.remote_actor_url IS NOT NULL, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM movie_review_stats_add(NEW.movie_id, NEW.rating, NEW.remote_actor_url IS NOT NULL, 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER movie_review_stats_insert AFTER INSERT ON reviews FOR EACH ROW EXECUTE FUNCTION movie_review_stats();
CREATE TRIGGER movie_review_stats_delete AFTER DELETE ON reviews FOR EACH ROW EXECUTE FUNCTION movie_review_stats();
CREATE TRIGGER movie_review_stats_update AFTER UPDATE OF movie_id, rating, remote_actor_url ON reviews FOR EACH ROW
    WHEN (OLD.movie_id IS DISTINCT FROM NEW.movie_id OR OLD.rating IS DISTINCT FROM NEW.rating
          OR (OLD.remote_actor_url IS NULL) <> (NEW.remote_actor_url IS NULL))
    EXECUTE FUNCTION movie_review_stats();
