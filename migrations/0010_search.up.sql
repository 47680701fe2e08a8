-- Full-text search (FTS5) over movies and people. search_movies and search_people hold one
-- document per movie / person, keyed by its id (UNIQUE): every index write is an upsert on that
-- key, so repeated or concurrent index writes can never leave two documents for one id. The
-- FTS5 tables are external-content indexes over them, kept in step by triggers. A document goes
-- with its movie or person (ON DELETE CASCADE). Filters (year, genre, language, person) are
-- applied on the movies table at query time, so the documents hold only text.
CREATE TABLE search_movies (
    id         INTEGER PRIMARY KEY,
    movie_id   TEXT NOT NULL UNIQUE REFERENCES movies (id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    director   TEXT NOT NULL DEFAULT '',
    overview   TEXT NOT NULL DEFAULT '',
    genres     TEXT NOT NULL DEFAULT '',
    keywords   TEXT NOT NULL DEFAULT '',
    cast_names TEXT NOT NULL DEFAULT '',
    crew_names TEXT NOT NULL DEFAULT ''
);

CREATE VIRTUAL TABLE movies_fts USING fts5(
    title, director, overview, genres, keywords, cast_names, crew_names,
    content = 'search_movies', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);

-- Rank by BM25 weighting the columns: title, director, overview, genres, keywords, cast, crew.
-- Ordering by the rank column alone lets FTS5 sort and stop at the page.
INSERT INTO movies_fts (movies_fts, rank) VALUES ('rank', 'bm25(10.0, 4.0, 1.0, 2.0, 2.0, 3.0, 1.0)');

CREATE TRIGGER search_movies_ai AFTER INSERT ON search_movies BEGIN
    INSERT INTO movies_fts (rowid, title, director, overview, genres, keywords, cast_names, crew_names)
    VALUES (new.id, new.title, new.director, new.overview, new.genres, new.keywords, new.cast_names, new.crew_names);
END;

CREATE TRIGGER search_movies_ad AFTER DELETE ON search_movies BEGIN
    INSERT INTO movies_fts (movies_fts, rowid, title, director, overview, genres, keywords, cast_names, crew_names)
    VALUES ('delete', old.id, old.title, old.director, old.overview, old.genres, old.keywords, old.cast_names, old.crew_names);
END;

CREATE TRIGGER search_movies_au AFTER UPDATE ON search_movies BEGIN
    INSERT INTO movies_fts (movies_fts, rowid, title, director, overview, genres, keywords, cast_names, crew_names)
    VALUES ('delete', old.id, old.title, old.director, old.overview, old.genres, old.keywords, old.cast_names, old.crew_names);
    INSERT INTO movies_fts (rowid, title, director, overview, genres, keywords, cast_names, crew_names)
    VALUES (new.id, new.title, new.director, new.overview, new.genres, new.keywords, new.cast_names, new.crew_names);
END;

CREATE TABLE search_people (
    id        INTEGER PRIMARY KEY,
    person_id TEXT NOT NULL UNIQUE REFERENCES people (id) ON DELETE CASCADE,
    name      TEXT NOT NULL
);

CREATE VIRTUAL TABLE people_fts USING fts5(
    name, content = 'search_people', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);

CREATE TRIGGER search_people_ai AFTER INSERT ON search_people BEGIN
    INSERT INTO people_fts (rowid, name) VALUES (new.id, new.name);
END;

CREATE TRIGGER search_people_ad AFTER DELETE ON search_people BEGIN
    INSERT INTO people_fts (people_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;

CREATE TRIGGER search_people_au AFTER UPDATE ON search_people BEGIN
    INSERT INTO people_fts (people_fts, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO people_fts (rowid, name) VALUES (new.id, new.name);
END;
