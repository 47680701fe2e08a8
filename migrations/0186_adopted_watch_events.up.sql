-- Watch events a database adopted from the original movies-diary kept in legacy_watch_events.
-- Pending ones become the user's watch queue again; confirmed and dismissed ones are carried
-- closed (the original recorded neither the review nor when they were closed: closed_at is its
-- created_at, so the purge keeps them as long as ours). An external id the original stored that
-- is not tmdb:N or tt… (its Jellyfin path took Provider_imdb as sent) is dropped, so the event
-- falls back to its title and year, as ours would have. movie_id stays only where the movie
-- was carried. On any other database the legacy table is created empty and dropped.
--
-- dedup_key is what WatchEvent.DedupKey computes: the external id, else
-- 'title:' + the folded, trimmed title + '|' + the year. SQLite's lower() and trim() fold only
-- ASCII, so the title-keyed rows are listed in legacy_watch_dedup and the start-up that applies
-- this migration recomputes their keys in Go (rekeyAdoptedWatches, adopt.go) and drops it.
CREATE TABLE IF NOT EXISTS legacy_watch_events (
    id                   TEXT,
    user_id              TEXT,
    movie_id             TEXT,
    title                TEXT,
    year                 INTEGER,
    external_metadata_id TEXT,
    source               TEXT,
    watched_at           TEXT,
    status               TEXT,
    created_at           TEXT
);

CREATE TABLE legacy_watch_dedup (id TEXT PRIMARY KEY);

INSERT OR IGNORE INTO watch_events (id, user_id, source, title, year, external_id, movie_id, dedup_key, status,
    review_id, watched_at, closed_at)
SELECT w.id, w.user_id, w.source, w.title, w.year, w.ext, m.id,
    COALESCE(w.ext, 'title:' || lower(trim(w.title)) || '|' || COALESCE(w.year, '')),
    w.status, NULL, w.watched,
    iif(w.status = 'pending', NULL, COALESCE(w.created, w.watched))
FROM (SELECT id, user_id, movie_id, title, CAST(year AS INTEGER) AS year, source, lower(status) AS status,
        CASE WHEN trim(external_metadata_id) GLOB 'tt[0-9]*' AND substr(trim(external_metadata_id), 3) NOT GLOB '*[^0-9]*'
                AND length(trim(external_metadata_id)) <= 14 THEN trim(external_metadata_id)
            WHEN trim(external_metadata_id) GLOB 'tmdb:[0-9]*' AND substr(trim(external_metadata_id), 6) NOT GLOB '*[^0-9]*'
                AND length(trim(external_metadata_id)) <= 17 THEN trim(external_metadata_id) END AS ext,
        COALESCE(CAST(ROUND((julianday(watched_at) - 2440587.5) * 86400000) AS INTEGER),
            CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER),
            CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)) AS watched,
        CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) AS created
    FROM legacy_watch_events) w
LEFT JOIN movies m ON m.id = w.movie_id
WHERE w.user_id IN (SELECT id FROM users) AND w.status IN ('pending', 'confirmed', 'dismissed')
    AND w.title IS NOT NULL AND w.source IS NOT NULL;

INSERT INTO legacy_watch_dedup (id)
SELECT e.id FROM watch_events e JOIN legacy_watch_events w ON w.id = e.id WHERE e.external_id IS NULL;

DROP TABLE legacy_watch_events;
