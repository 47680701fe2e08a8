-- 0206 spread the instance-wide review counts over 16 slots so that concurrent review writes
-- do not queue on one row lock. A movie's stats (movie_review_stats) and a user's counts
-- ('user', 'user_local') were left one row each, and every review of a movie held its row from
-- the insert to the commit's WAL flush: reviews of one movie, or by one user, committed one at
-- a time (make bench's write path, 16 clients on one movie: 1,297 of 2,300 samples of the
-- backends in Lock: transactionid, 77 ms mean wait per insert; issue 34). They now take the
-- writing connection's slot too; a movie's stats and a user's counts are the sums of their
-- rows. A slot's row goes when all its counters are back to zero (a slot may hold a review's
-- +1 and another's -1 of a different rating, so n alone says nothing).
ALTER TABLE movie_review_stats ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE movie_review_stats DROP CONSTRAINT movie_review_stats_pkey;
ALTER TABLE movie_review_stats ADD PRIMARY KEY (movie_id, slot);

CREATE OR REPLACE FUNCTION movie_review_stats_add(p_movie text, p_rating integer, p_federated boolean, p_d integer) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO movie_review_stats (movie_id, slot, n, federated, rating_sum, r1, r2, r3, r4, r5)
    VALUES (p_movie, review_counts_slot(), p_d, p_d * p_federated::int, p_d * p_rating, p_d * (p_rating = 1)::int,
            p_d * (p_rating = 2)::int, p_d * (p_rating = 3)::int, p_d * (p_rating = 4)::int, p_d * (p_rating = 5)::int)
    ON CONFLICT (movie_id, slot) DO UPDATE SET n = movie_review_stats.n + excluded.n,
        federated = movie_review_stats.federated + excluded.federated,
        rating_sum = movie_review_stats.rating_sum + excluded.rating_sum,
        r1 = movie_review_stats.r1 + excluded.r1, r2 = movie_review_stats.r2 + excluded.r2,
        r3 = movie_review_stats.r3 + excluded.r3, r4 = movie_review_stats.r4 + excluded.r4,
        r5 = movie_review_stats.r5 + excluded.r5;
    DELETE FROM movie_review_stats WHERE movie_id = p_movie AND slot = review_counts_slot()
        AND n = 0 AND federated = 0 AND rating_sum = 0 AND r1 = 0 AND r2 = 0 AND r3 = 0 AND r4 = 0 AND r5 = 0;
$$;

CREATE OR REPLACE FUNCTION review_counts_add(p_user text, p_local boolean, p_d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO review_counts (scope, key, slot, n)
    SELECT s.scope, s.key, review_counts_slot(), p_d FROM (VALUES
            (1, 'all', ''), (2, 'local', ''), (3, 'user', p_user), (4, 'user_local', p_user))
        AS s (ord, scope, key)
    WHERE p_local OR s.scope IN ('all', 'user')
    ORDER BY s.ord
    ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n + excluded.n;
    DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = p_user AND slot = review_counts_slot() AND n = 0;
$$;
