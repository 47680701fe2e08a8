-- Three changes to the review writes, each from profiling make bench's
-- POST /reviews (16 clients, one user, one movie; issue 34).
--
-- A slot per transaction. 0206 and 0410 chose a count row's slot by the backend's pid modulo 16,
-- but pids are not spread over the slots: with a pool of 20 connections at least four pairs share
-- a slot, and each review of a pair waited for the other's commit on the slot's rows (sampled:
-- 1,507 of 5,000 active backends in Lock: transactionid on the review's insert). A writing
-- transaction now takes a slot of its own: the first of the 64 slots, starting at its pid's, whose
-- transaction-level advisory lock it gets without waiting, kept for the transaction in a local
-- setting. No two transactions write a slot's rows at once, so none waits on another's count
-- rows; only a 65th concurrent writer waits, for the slot of its pid. The lock uses the two-key
-- form, a space of its own (key 1 = 0x6d646373, "mdcs"), apart from the one-key locks the store
-- takes. Any slot is right for any write: a count is the sum of its rows, whatever their slots.
--
-- PL/pgSQL. The functions the review triggers call were LANGUAGE sql returning void, which
-- PostgreSQL (before 18) parses and plans on every call: fmgr_sql and the parser and planner
-- under it were 11.5 % of the machine's CPU (a follow's, off this path, stay as they are).
-- PL/pgSQL keeps each statement's plan for the connection's life. A slot row is deleted only
-- when its upsert left it at zero (the statement returns it), not looked up after every write.
-- Parameters are named p_* and variables v_*, which no column is.

CREATE OR REPLACE FUNCTION review_counts_slot() RETURNS smallint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_held text := current_setting('moviesdiary.count_slot', true);
    v_first int := pg_backend_pid() % 64;
    v_slot int;
BEGIN
    IF v_held <> '' THEN
        RETURN v_held::smallint;
    END IF;
    FOR i IN 0..63 LOOP
        v_slot := (v_first + i) % 64;
        IF pg_try_advisory_xact_lock(1835295603, v_slot) THEN
            PERFORM set_config('moviesdiary.count_slot', v_slot::text, true);
            RETURN v_slot;
        END IF;
    END LOOP;
    PERFORM pg_advisory_xact_lock(1835295603, v_first);
    PERFORM set_config('moviesdiary.count_slot', v_first::text, true);
    RETURN v_first;
END $$;

CREATE OR REPLACE FUNCTION movie_review_stats_add(p_movie text, p_rating integer, p_federated boolean, p_d integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_slot smallint := review_counts_slot();
    v_zero boolean;
BEGIN
    INSERT INTO movie_review_stats (movie_id, slot, n, federated, rating_sum, r1, r2, r3, r4, r5)
    VALUES (p_movie, v_slot, p_d, p_d * p_federated::int, p_d * p_rating, p_d * (p_rating = 1)::int,
            p_d * (p_rating = 2)::int, p_d * (p_rating = 3)::int, p_d * (p_rating = 4)::int, p_d * (p_rating = 5)::int)
    ON CONFLICT (movie_id, slot) DO UPDATE SET n = movie_review_stats.n + excluded.n,
        federated = movie_review_stats.federated + excluded.federated,
        rating_sum = movie_review_stats.rating_sum + excluded.rating_sum,
        r1 = movie_review_stats.r1 + excluded.r1, r2 = movie_review_stats.r2 + excluded.r2,
        r3 = movie_review_stats.r3 + excluded.r3, r4 = movie_review_stats.r4 + excluded.r4,
        r5 = movie_review_stats.r5 + excluded.r5
    RETURNING n = 0 AND federated = 0 AND rating_sum = 0 AND r1 = 0 AND r2 = 0 AND r3 = 0 AND r4 = 0 AND r5 = 0
    INTO v_zero;
    IF v_zero THEN
        DELETE FROM movie_review_stats WHERE movie_id = p_movie AND slot = v_slot;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION review_counts_add(p_user text, p_local boolean, p_d integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_slot smallint := review_counts_slot();
    v_zero boolean;
BEGIN
    WITH up AS (
        INSERT INTO review_counts (scope, key, slot, n)
        SELECT s.scope, s.key, v_slot, p_d FROM (VALUES
                (1, 'all', ''), (2, 'local', ''), (3, 'user', p_user), (4, 'user_local', p_user))
            AS s (ord, scope, key)
        WHERE p_local OR s.scope IN ('all', 'user')
        ORDER BY s.ord
        ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n + excluded.n
        RETURNING scope, n)
    SELECT coalesce(bool_or(n = 0 AND scope IN ('user', 'user_local')), false) INTO v_zero FROM up;
    IF v_zero THEN
        DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = p_user AND slot = v_slot AND n = 0;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION following_feed_fan_out(p_review text, p_watched text, p_author text, p_local boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO following_feed (owner_id, watched_at, review_id, author)
    SELECT f.follower_id, p_watched, p_review, f.target_id FROM follows f
    WHERE f.target_kind = CASE WHEN p_local THEN 'local' ELSE 'remote' END
      AND f.target_id = p_author AND f.status = 'accepted' AND f.follower_kind = 'local'
    ON CONFLICT DO NOTHING;
END $$;


-- lock_feed_counts is the store's lockFeedCounts in one round trip where it was two: the shared
-- advisory lock on the author's followers (p_key, as lockFollowers names it), then, in a
-- statement of its own, the upsert that locks in key order the following-feed counts a write of
-- review p_review by local user p_author moves. The upsert must not share the lock's statement:
-- a statement's snapshot is taken before the locks it waits for, and it would miss a follow
-- accepted while it waited; each statement of a (volatile) PL/pgSQL function takes its own.
CREATE FUNCTION lock_feed_counts(p_key text, p_author text, p_review text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_key, 0));
    INSERT INTO review_counts (scope, key, n)
    SELECT 'following', k.key, 0 FROM (
        SELECT follower_id AS key FROM follows WHERE target_kind = 'local' AND target_id = p_author AND status = 'accepted'
            AND follower_kind = 'local'
        UNION SELECT owner_id FROM following_feed WHERE review_id = p_review) AS k
    ORDER BY k.key
    ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n;
END $$;
