-- What enrichment (the worker, from TMDb) learns about a movie and its people. The server only
-- reads these tables; a movie without a profile row is not enriched yet.
CREATE TABLE movie_profiles (
    movie_id    TEXT PRIMARY KEY REFERENCES movies (id) ON DELETE CASCADE,
    profile     TEXT NOT NULL, -- the JSON document GET /api/v1/movies/{id}/profile returns
    enriched_at TEXT NOT NULL
);

CREATE TABLE people (
    id                   TEXT PRIMARY KEY, -- UUIDv5(URL namespace, external_id)
    external_id          TEXT NOT NULL UNIQUE, -- "tmdb:<id>"
    name                 TEXT NOT NULL,
    known_for_department TEXT,
    profile_path         TEXT,
    biography            TEXT,
    birthday             TEXT,
    deathday             TEXT,
    place_of_birth       TEXT,
    homepage             TEXT,
    imdb_id              TEXT,
    enriched_at          TEXT
);

CREATE TABLE movie_credits (
    movie_id      TEXT NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    person_id     TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('cast', 'crew')),
    role          TEXT NOT NULL DEFAULT '', -- the character (cast) or the job (crew)
    department    TEXT,
    billing_order INTEGER,
    PRIMARY KEY (movie_id, person_id, kind, role)
) WITHOUT ROWID;
CREATE INDEX idx_movie_credits_person ON movie_credits (person_id);
