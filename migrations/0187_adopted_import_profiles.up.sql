-- Import profiles a database adopted from the original movies-diary kept in
-- legacy_import_profiles. The original stored field_mappings as serde's JSON of its mappings:
-- [{"source_column": "Rating", "domain_field": "Rating", "transform": {"RatingScale": 0.5}},
--  {"source_column": "Date", "domain_field": "WatchedAt", "transform": {"DateFormat": "%d/%m/%Y"}},
--  {"source_column": "Name", "domain_field": "Title", "transform": "Identity"}]
-- Ours is the API's shape (imports.go, mappingJSON): domain_field in snake case, rating_scale
-- (the same multiplier) and date_format (the same strftime pattern) as members, left out when
-- unset. An element not in the original's shape is left out (the original could not read it
-- either); a profile whose mappings are not a JSON array is kept with none. Profiles of users
-- that were not carried go with them. On any other database the legacy table is created empty
-- and dropped.
CREATE TABLE IF NOT EXISTS legacy_import_profiles (
    id             TEXT,
    user_id        TEXT,
    name           TEXT,
    field_mappings TEXT,
    created_at     TEXT
);

INSERT OR IGNORE INTO import_profiles (id, user_id, name, mappings, created_at)
SELECT p.id, p.user_id, p.name,
    COALESCE((SELECT json_group_array(json(m)) FROM (
        SELECT json_patch(
                json_object('source_column', json_extract(e.value, '$.source_column'), 'domain_field',
                    CASE json_extract(e.value, '$.domain_field')
                        WHEN 'Title' THEN 'title' WHEN 'ReleaseYear' THEN 'release_year'
                        WHEN 'Director' THEN 'director' WHEN 'Rating' THEN 'rating'
                        WHEN 'WatchedAt' THEN 'watched_at' WHEN 'Comment' THEN 'comment'
                        WHEN 'ExternalMetadataId' THEN 'external_metadata_id' END),
                json_object('rating_scale', CASE WHEN json_type(e.value, '$.transform.RatingScale') IN ('integer', 'real')
                        THEN json_extract(e.value, '$.transform.RatingScale') END,
                    'date_format', CASE WHEN json_type(e.value, '$.transform.DateFormat') = 'text'
                        THEN nullif(json_extract(e.value, '$.transform.DateFormat'), '') END)) AS m
        FROM json_each(CASE WHEN json_valid(p.field_mappings) THEN
                CASE WHEN json_type(p.field_mappings) = 'array' THEN p.field_mappings END END) e
        WHERE e.type = 'object' AND json_type(e.value, '$.source_column') = 'text'
            AND json_extract(e.value, '$.domain_field') IN ('Title', 'ReleaseYear', 'Director', 'Rating', 'WatchedAt',
                'Comment', 'ExternalMetadataId')
        ORDER BY e.key)), '[]'),
    COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', p.created_at), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
FROM legacy_import_profiles p
WHERE p.user_id IN (SELECT id FROM users) AND p.id IS NOT NULL AND p.name IS NOT NULL;

DROP TABLE legacy_import_profiles;
