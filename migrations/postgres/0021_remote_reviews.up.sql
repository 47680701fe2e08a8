-- Remote reviews (from other instances) have no local user: their user_id is UUIDv5 of the
-- author's actor URL. The foreign key of reviews.user_id on users would refuse them, so it is
-- dropped (SQLite rebuilds the table for that), and two triggers keep what it guaranteed for
-- local reviews: a local review names an existing user, and deleting a user deletes their
-- reviews.
ALTER TABLE reviews DROP CONSTRAINT reviews_user_id_fkey;

CREATE FUNCTION reviews_local_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.remote_actor_url IS NULL AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id) THEN
        RAISE foreign_key_violation USING MESSAGE = 'FOREIGN KEY constraint failed: review of unknown user ' || NEW.user_id;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER reviews_local_user BEFORE INSERT ON reviews FOR EACH ROW EXECUTE FUNCTION reviews_local_user();

CREATE FUNCTION users_delete_reviews() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM reviews WHERE user_id = OLD.id AND remote_actor_url IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER users_delete_reviews AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION users_delete_reviews();
