-- The instance-wide counts ('all' and 'local', 0200) were one row each, so every review write on
-- every server waited for the previous one to commit: PostgreSQL holds a row lock until commit,
-- and make bench's write path ran at 3-12 % of SQLite's. They are now spread over 16 rows
-- (slot 0-15, chosen by the writing connection's backend pid), which writers on different
-- connections update without waiting for one another; a count is the sum of its scope's rows.
-- The per-user and per-follower counts stay in slot 0: only one user's writes meet there.
ALTER TABLE review_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE review_counts DROP CONSTRAINT review_counts_pkey;
ALTER TABLE review_counts ADD PRIMARY KEY (scope, key, slot);

-- The slot of this connection's writes to an instance-wide count.
CREATE FUNCTION review_counts_slot() RETURNS smallint LANGUAGE sql STABLE AS $$
    SELECT (pg_backend_pid() % 16)::smallint
$$;

CREATE OR REPLACE FUNCTION review_counts_add(p_user text, p_local boolean, p_d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO review_counts (scope, key, slot, n)
    SELECT s.scope, s.key, s.slot, p_d FROM (VALUES
            (1, 'all', '', review_counts_slot()), (2, 'local', '', review_counts_slot()),
            (3, 'user', p_user, 0::smallint), (4, 'user_local', p_user, 0::smallint))
        AS s (ord, scope, key, slot)
    WHERE p_local OR s.scope IN ('all', 'user')
    ORDER BY s.ord
    ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n + excluded.n;
    DELETE FROM review_counts WHERE scope IN ('user', 'user_local') AND key = p_user AND n = 0;
$$;

CREATE OR REPLACE FUNCTION following_feed_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO review_counts (scope, key, n) VALUES ('following', NEW.owner_id, 1)
            ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n + 1;
    ELSE
        UPDATE review_counts SET n = n - 1 WHERE scope = 'following' AND key = OLD.owner_id;
        DELETE FROM review_counts WHERE scope = 'following' AND key = OLD.owner_id AND n = 0;
    END IF;
    RETURN NULL;
END $$;
