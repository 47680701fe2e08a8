-- quiet marks a review (or watchlist entry) imported without federate: true. Federation does not
-- announce it, neither when it is created nor when its movie's poster arrives later, so an
-- import of years of history does not flood every follower's timeline.
ALTER TABLE reviews ADD COLUMN quiet boolean NOT NULL DEFAULT false;
CREATE INDEX idx_reviews_user_movie ON reviews (user_id, movie_id);
