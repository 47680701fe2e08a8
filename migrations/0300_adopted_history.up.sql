-- History a database adopted from the original movies-diary carried (adopt.go) runs on the
-- worker's retention clocks from the adoption, not from when the original wrote it: adopted_at
-- is when the row was carried (NULL: written here).
--   inbox_activities: the federation pruner keeps a carried id for good (the original never
--     forgot one, and carrying them is what refuses replays of its activities), where it forgets
--     ours after the 14-day dedup window.
--   wrapups: the wrap-up reaper fails a carried Pending or Generating one a day after the
--     adoption and deletes a carried Failed one a week after it, as it does ours a day and a
--     week after their creation.
-- The adoption lists the rows it carried in legacy_adopted_history; on any other database the
-- list does not exist: it is created empty here, so nothing is marked, and dropped.
ALTER TABLE inbox_activities ADD COLUMN adopted_at INTEGER; -- Unix ms
ALTER TABLE wrapups ADD COLUMN adopted_at TEXT;

CREATE TABLE IF NOT EXISTS legacy_adopted_history (
    tbl        TEXT,
    id         TEXT,
    adopted_at INTEGER -- Unix ms
);

UPDATE inbox_activities SET adopted_at = h.adopted_at
FROM legacy_adopted_history h WHERE h.tbl = 'inbox_activities' AND h.id = inbox_activities.activity_id;

UPDATE wrapups SET adopted_at = strftime('%Y-%m-%dT%H:%M:%fZ', h.adopted_at / 1000.0, 'unixepoch')
FROM legacy_adopted_history h WHERE h.tbl = 'wrapups' AND h.id = wrapups.id;

DROP TABLE legacy_adopted_history;
