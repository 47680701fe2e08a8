-- Leases of the worker's periodic jobs: one row per job, held by one worker until expires_at
-- (Unix ms), so with several workers each job runs on one of them at a time.
CREATE TABLE job_leases (
    name       text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at bigint NOT NULL
);
