-- Backdrops and cast photos (issue 32 §3): the worker's movie-images handler downloads them once
-- after enrichment and points the rows at the stored keys.
--   * movies.backdrop_path: the backdrop's TMDb file path ("/abc.jpg"), as enrichment found it;
--   * movies.backdrop_key: the stored backdrop's key (backdrops/<movie id>, or its conversion);
--   * people.photo_key: the stored profile photo's key (people/<person id>, or its conversion).
-- people.profile_path stays TMDb's path: the API returns it as the original did.
ALTER TABLE movies ADD COLUMN backdrop_path TEXT;
ALTER TABLE movies ADD COLUMN backdrop_key TEXT;
ALTER TABLE people ADD COLUMN photo_key TEXT;
