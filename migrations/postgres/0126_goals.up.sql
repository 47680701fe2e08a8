-- Yearly viewing goals: at most one per user and year. Progress is not stored: it is the count of
-- the user's reviews watched in that year, read with the goal.
CREATE TABLE goals (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    year         integer NOT NULL CHECK (year BETWEEN 2020 AND 9999),
    target_count integer NOT NULL CHECK (target_count >= 1),
    created_at   text NOT NULL,
    updated_at   text NOT NULL,
    UNIQUE (user_id, year)
);
