package postgres

import (
	"strings"

	"moviesdiary/internal/adapters/sqlstore"
)

// The search documents (migrations/postgres/0010_search.up.sql): one row per movie and per
// credited person holding the text; PostgreSQL keeps each row's weighted tsvector (document)
// itself, under a GIN index, in the moviesdiary_search configuration (unaccent, no stemming).

// upsertMovieDocs builds movie documents from the current rows selected by where (over movies
// m) and upserts them on movie_id: genres from the movie, keywords from its profile, cast and
// crew names from its credits.
const upsertMovieDocs = `INSERT INTO search_movies (movie_id, title, director, overview, genres, keywords, cast_names, crew_names)
	SELECT m.id, m.title, COALESCE(m.director, ''), COALESCE(m.overview, ''),
		COALESCE((SELECT string_agg(g, ' ') FROM jsonb_array_elements_text(m.genres::jsonb) g), ''),
		COALESCE((SELECT string_agg(k->>'name', ' ') FROM movie_profiles mp,
			jsonb_array_elements(CASE WHEN jsonb_typeof(mp.profile::jsonb->'keywords') = 'array'
				THEN mp.profile::jsonb->'keywords' ELSE '[]' END) k WHERE mp.movie_id = m.id), ''),
		COALESCE((SELECT string_agg(name, ' ') FROM (SELECT DISTINCT p.name FROM movie_credits c JOIN people p ON p.id = c.person_id
			WHERE c.movie_id = m.id AND c.kind = 'cast') d), ''),
		COALESCE((SELECT string_agg(name, ' ') FROM (SELECT DISTINCT p.name FROM movie_credits c JOIN people p ON p.id = c.person_id
			WHERE c.movie_id = m.id AND c.kind = 'crew') d), '')
	FROM movies m WHERE %s ORDER BY m.id
	ON CONFLICT (movie_id) DO UPDATE SET title = excluded.title, director = excluded.director,
		overview = excluded.overview, genres = excluded.genres, keywords = excluded.keywords,
		cast_names = excluded.cast_names, crew_names = excluded.crew_names`

// upsertPeopleDocs upserts the documents of the people selected by where (over people p) who
// have at least one credit, in id order (concurrent upserts lock the rows in one order).
const upsertPeopleDocs = `INSERT INTO search_people (person_id, name)
	SELECT p.id, p.name FROM people p
	WHERE (%s) AND EXISTS (SELECT 1 FROM movie_credits c WHERE c.person_id = p.id) ORDER BY p.id
	ON CONFLICT (person_id) DO UPDATE SET name = excluded.name`

// SearchMatch matches words against each document's tsvector: every word must match, the last
// one as a prefix (search as you type), as the SQLite store's FTS5 query. Words are quoted as
// lexemes, so no input is tsquery syntax. Ranked by ts_rank with searchWeights, ties in order.
func (*dialect) SearchMatch(table string, words []string, order string) sqlstore.TextMatch {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `'` + w + `'`
	}
	expr := strings.Join(quoted, " & ") + ":*"
	return sqlstore.TextMatch{
		From:      ` FROM ` + table + ` s`,
		Cond:      `s.document @@ to_tsquery('moviesdiary_search', ?)`,
		Arg:       expr,
		Order:     `ts_rank(` + searchWeights + `, s.document, to_tsquery('moviesdiary_search', ?)) DESC, ` + order,
		OrderArgs: []any{expr},
	}
}

// searchWeights are ts_rank's weights of the classes D, C, B, A (overview and crew; genres and
// keywords; director and cast; title): FTS5's bm25 column weights, in the same proportions.
const searchWeights = `'{0.1, 0.2, 0.35, 1.0}'`

func (*dialect) PersonHitColumns() string { return personHitColumns }

// personHitColumns are the columns of sqlrow.PersonHit: a person and up to three titles they are
// known for (billed credits first, then the newest movie).
const personHitColumns = `p.id, p.name, p.known_for_department, p.profile_path,
	(SELECT COALESCE(json_agg(k.title ORDER BY k.unbilled, k.release_year DESC NULLS LAST, k.title COLLATE "C"), '[]')::text
		FROM (SELECT m.title, m.release_year, min(c.billing_order) IS NULL AS unbilled
			FROM movie_credits c JOIN movies m ON m.id = c.movie_id WHERE c.person_id = p.id GROUP BY m.id
			ORDER BY unbilled, m.release_year DESC NULLS LAST, m.title COLLATE "C" LIMIT 3) k) AS known_for_titles`
