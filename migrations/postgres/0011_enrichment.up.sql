-- Enrichment bookkeeping:
--   * tmdb_missing_at: when TMDb answered that it does not know the movie / person, so it is not
--     asked again on every request or staleness run (it is retried after 30 days);
--   * movies.enrichment_requested_at: when the staleness job last asked for the movie, so a
--     worker that lags behind is not sent the same request every run.
ALTER TABLE movies ADD COLUMN tmdb_missing_at text;
ALTER TABLE movies ADD COLUMN enrichment_requested_at text;
ALTER TABLE people ADD COLUMN tmdb_missing_at text;
CREATE INDEX idx_movie_profiles_enriched ON movie_profiles (enriched_at);
