-- people.enrichment_requested_at: when a person was last asked for (reading an unenriched
-- person's page asks once; the worker's staleness job asks again a day later if still nothing
-- came of it), so a page read does not enqueue a request every time.
ALTER TABLE people ADD COLUMN enrichment_requested_at text;
CREATE INDEX idx_people_enrichment_requested ON people (enrichment_requested_at)
    WHERE enrichment_requested_at IS NOT NULL AND enriched_at IS NULL;
