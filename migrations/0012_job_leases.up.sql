-- Leases of the worker's periodic jobs: one row per job, held by one worker until expires_at
-- (Unix ms), so with several workers each job runs on one of them at a time.
CREATE TABLE job_leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
