-- What enrichment (the worker, from TMDb) learns about a movie and its people. The server only
-- reads these tables; a movie without a profile row is not enriched yet.
CREATE TABLE movie_profiles (
    movie_id    text PRIMARY KEY REFERENCES movies (id) ON DELETE CASCADE,
    profile     text NOT NULL, -- the JSON document GET /api/v1/movies/{id}/profile returns
    enriched_at text NOT NULL
);

CREATE TABLE people (
    id                   text PRIMARY KEY, -- UUIDv5(URL namespace, external_id)
    external_id          text NOT NULL UNIQUE, -- "tmdb:<id>"
    name                 text NOT NULL,
    known_for_department text,
    profile_path         text,
    biography            text,
    birthday             text,
    deathday             text,
    place_of_birth       text,
    homepage             text,
    imdb_id              text,
    enriched_at          text
);

CREATE TABLE movie_credits (
    movie_id      text NOT NULL REFERENCES movies (id) ON DELETE CASCADE,
    person_id     text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    kind          text NOT NULL CHECK (kind IN ('cast', 'crew')),
    role          text NOT NULL DEFAULT '', -- the character (cast) or the job (crew)
    department    text,
    billing_order integer,
    PRIMARY KEY (movie_id, person_id, kind, role)
);
CREATE INDEX idx_movie_credits_person ON movie_credits (person_id);
