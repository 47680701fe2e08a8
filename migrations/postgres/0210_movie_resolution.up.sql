-- Resolution by title (issue 32): a movie typed in by hand (no external id) is looked up on
-- TMDb by title and year in the background.
--   * resolution_requested_at: when MovieResolutionRequested was last enqueued for the movie, so
--     the worker's requester does not ask again before a resolution could have run.
--   * resolution_attempted_at: when the worker last searched for it without a confident match
--     (ambiguous, not found): it is asked again only after a long gap.
--   * duplicate_of: the movie that already holds the external id this one resolved to. The two
--     are one film; merging them is a separate step, and this column is its to-do list.
ALTER TABLE movies ADD COLUMN resolution_requested_at text;
ALTER TABLE movies ADD COLUMN resolution_attempted_at text;
ALTER TABLE movies ADD COLUMN duplicate_of text;
CREATE INDEX idx_movies_unresolved ON movies (resolution_requested_at) WHERE external_metadata_id IS NULL;
