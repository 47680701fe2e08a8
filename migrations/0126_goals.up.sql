-- Yearly viewing goals: at most one per user and year. Progress is not stored: it is the count of
-- the user's reviews watched in that year, read with the goal.
CREATE TABLE goals (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    year         INTEGER NOT NULL CHECK (year BETWEEN 2020 AND 9999),
    target_count INTEGER NOT NULL CHECK (target_count >= 1),
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    UNIQUE (user_id, year)
);
