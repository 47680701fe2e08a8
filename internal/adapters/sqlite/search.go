package sqlite

import (
	"strings"

	"moviesdiary/internal/adapters/sqlstore"
)

// upsertMovieDocs builds movie documents from the current rows selected by where (over movies
// m) and upserts them on movie_id: genres from the movie, keywords from its profile, cast and
// crew names from its credits.
const upsertMovieDocs = `INSERT INTO search_movies (movie_id, title, director, overview, genres, keywords, cast_names, crew_names)
	SELECT m.id, m.title, ifnull(m.director, ''), ifnull(m.overview, ''),
		ifnull((SELECT group_concat(g.value, ' ') FROM json_each(m.genres) g), ''),
		ifnull((SELECT group_concat(json_extract(k.value, '$.name'), ' ')
			FROM movie_profiles mp, json_each(mp.profile, '$.keywords') k WHERE mp.movie_id = m.id), ''),
		ifnull((SELECT group_concat(name, ' ') FROM (SELECT DISTINCT p.name FROM movie_credits c JOIN people p ON p.id = c.person_id
			WHERE c.movie_id = m.id AND c.kind = 'cast')), ''),
		ifnull((SELECT group_concat(name, ' ') FROM (SELECT DISTINCT p.name FROM movie_credits c JOIN people p ON p.id = c.person_id
			WHERE c.movie_id = m.id AND c.kind = 'crew')), '')
	FROM movies m WHERE %s
	ON CONFLICT (movie_id) DO UPDATE SET title = excluded.title, director = excluded.director,
		overview = excluded.overview, genres = excluded.genres, keywords = excluded.keywords,
		cast_names = excluded.cast_names, crew_names = excluded.crew_names`

// upsertPeopleDocs upserts the documents of the people selected by where (over people p) who
// have at least one credit.
const upsertPeopleDocs = `INSERT INTO search_people (person_id, name)
	SELECT p.id, p.name FROM people p
	WHERE (%s) AND EXISTS (SELECT 1 FROM movie_credits c WHERE c.person_id = p.id)
	ON CONFLICT (person_id) DO UPDATE SET name = excluded.name`

// SearchMatch matches words in the FTS5 table of table (movies_fts, people_fts): every word
// must match, the last one as a prefix (search as you type), each quoted, so no input is FTS5
// syntax. The order is FTS5's rank alone: FTS5 then sorts by itself and the joins stop at the
// page; the count needs the FTS5 table alone (every document has its row and its movie or
// person: triggers and cascades).
func (dialect) SearchMatch(table string, words []string, _ string) sqlstore.TextMatch {
	fts := strings.TrimPrefix(table, "search_") + "_fts"
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	return sqlstore.TextMatch{
		From:      ` FROM ` + fts + ` JOIN ` + table + ` s ON s.id = ` + fts + `.rowid`,
		Cond:      fts + ` MATCH ?`,
		Arg:       strings.Join(quoted, " ") + "*",
		Order:     fts + `.rank`,
		CountFrom: `FROM ` + fts,
	}
}

func (dialect) PersonHitColumns() string { return personHitColumns }

// personHitColumns are the columns of sqlrow.PersonHit: a person and up to three titles they are
// known for.
const personHitColumns = `p.id, p.name, p.known_for_department, p.profile_path,
	(SELECT json_group_array(title) FROM (SELECT m.title FROM movie_credits c JOIN movies m ON m.id = c.movie_id
		WHERE c.person_id = p.id GROUP BY m.id ORDER BY min(c.billing_order) IS NULL, m.release_year DESC, m.title LIMIT 3))
		AS known_for_titles`
