-- backfills: where each one-off backfill the worker runs over existing rows has got to (name
-- 'image-thumbnails': the stored images whose ImageStored it re-enqueued so the worker makes
-- their thumbnails), so it resumes after a restart and, once done_at is set, never runs again.
CREATE TABLE backfills (
    name      text PRIMARY KEY,
    after_key text NOT NULL DEFAULT '',
    done_at   bigint
);
