package sqlite

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
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

// deleteOrphanPeopleDocs removes the documents of people left without any credit.
const deleteOrphanPeopleDocs = `DELETE FROM search_people
	WHERE NOT EXISTS (SELECT 1 FROM movie_credits c WHERE c.person_id = search_people.person_id)`

// indexMovieTx upserts a movie's document and its people's, inside tx.
func indexMovieTx(ctx context.Context, tx *sqlx.Tx, id uuid.UUID) error {
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(upsertMovieDocs, `m.id = ?`), id.String()); err != nil {
		return fmt.Errorf("index movie: %w", err)
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf(upsertPeopleDocs, `p.id IN (SELECT person_id FROM movie_credits WHERE movie_id = ?)`), id.String())
	if err != nil {
		return fmt.Errorf("index people: %w", err)
	}
	return nil
}

// IndexMovie upserts a movie's search document and its people's. A movie that is gone has no
// document (its row cascaded away).
func (s *Store) IndexMovie(ctx context.Context, id uuid.UUID, onlyIfMissing bool) error {
	if onlyIfMissing {
		var indexed bool
		err := s.read.GetContext(ctx, &indexed, `SELECT EXISTS (SELECT 1 FROM search_movies WHERE movie_id = ?)`, id.String())
		if err != nil {
			return fmt.Errorf("index movie: %w", err)
		}
		if indexed {
			return nil
		}
	}
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error { return indexMovieTx(ctx, tx, id) })
}

// RemoveMovie deletes a movie's document and the documents of people left without credits.
func (s *Store) RemoveMovie(ctx context.Context, id uuid.UUID) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_movies WHERE movie_id = ?`, id.String()); err != nil {
			return fmt.Errorf("remove movie from search: %w", err)
		}
		if _, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs); err != nil {
			return fmt.Errorf("remove orphan people from search: %w", err)
		}
		return nil
	})
}

// Reindex rebuilds every document from the current rows, a page of movies (then of people) per
// transaction, so the writer is never held for long and requests interleave.
func (s *Store) Reindex(ctx context.Context, page int) error {
	for _, t := range []struct{ table, upsert, col string }{
		{"movies", upsertMovieDocs, "m.id"},
		{"people", upsertPeopleDocs, "p.id"},
	} {
		after := ""
		for {
			var span struct {
				First *string `db:"first"`
				Last  *string `db:"last"`
			}
			err := s.read.GetContext(ctx, &span, `SELECT min(id) AS first, max(id) AS last FROM (SELECT id FROM `+t.table+`
				WHERE id > ? ORDER BY id LIMIT CAST(? AS INTEGER))`, after, page)
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			if span.Last == nil {
				break
			}
			err = s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, fmt.Sprintf(t.upsert, t.col+` BETWEEN ? AND ?`), *span.First, *span.Last)
				return err
			})
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			after = *span.Last
		}
	}
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs)
		return err
	})
}

// matchExpr turns free text into an FTS5 query: every word must match, the last one as a prefix
// (search as you type). Words are quoted, so no input is FTS5 syntax. ok is false when the text
// has no word at all.
func matchExpr(text string) (expr string, ok bool) {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return "", false
	}
	if len(words) > 16 {
		words = words[:16]
	}
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " ") + "*", true
}

// searchSQL is one search being built: its tables, conditions and order.
type searchSQL struct {
	from, order string
	where       []string
	args        []any
	// fts is the FTS5 table when the text has words; with no other condition the count comes
	// from it alone (every document has its row and its movie or person: triggers and cascades).
	fts string
}

// newSearchSQL starts a search over plain (all documents, ordered by order) or, when text has
// words, over withFTS matching them in the FTS5 table fts, ordered by its rank only: FTS5 then
// sorts itself and the joins stop at the page. ok is false when the text is not blank but has
// no word: nothing can match.
func newSearchSQL(text, plain, withFTS, fts, order string) (q searchSQL, ok bool) {
	q = searchSQL{from: plain, order: ` ORDER BY ` + order}
	if strings.TrimSpace(text) == "" {
		return q, true
	}
	expr, ok := matchExpr(text)
	if !ok {
		return q, false
	}
	q.from, q.order, q.fts = withFTS, ` ORDER BY `+fts+`.rank`, fts
	q.filter(fts+` MATCH ?`, expr)
	return q, true
}

func (q *searchSQL) filter(cond string, arg any) {
	q.where, q.args = append(q.where, cond), append(q.args, arg)
}

// searchPage counts the matches of q and returns the page's rows of cols, selected into R and
// converted by conv.
func searchPage[R, T any](ctx context.Context, db *sqlx.DB, q searchSQL, cols string, p domain.Page,
	conv func(R) (T, error)) (domain.Paged[T], error) {
	out := domain.Paged[T]{Page: p, Items: []T{}}
	w := ""
	if len(q.where) > 0 {
		w = ` WHERE ` + strings.Join(q.where, ` AND `)
	}
	count := `SELECT count(*)` + q.from + w
	if q.fts != "" && len(q.where) == 1 {
		count = `SELECT count(*) FROM ` + q.fts + w
	}
	if err := db.GetContext(ctx, &out.Total, count, q.args...); err != nil {
		return out, err
	}
	rows := sqlrow.PageOf[R](p, out.Total)
	if err := db.SelectContext(ctx, &rows, `SELECT `+cols+q.from+w+q.order+` LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
		append(q.args, p.Limit, p.Offset)...); err != nil {
		return out, err
	}
	items, err := sqlrow.MapRows(rows, conv)
	if items != nil {
		out.Items = items
	}
	return out, err
}

// SearchMovies pages the movies matching q's text and filters, best match first.
func (s *Store) SearchMovies(ctx context.Context, q search.Query) (domain.Paged[search.MovieHit], error) {
	sq, ok := newSearchSQL(q.Text, ` FROM search_movies s JOIN movies m ON m.id = s.movie_id`,
		` FROM movies_fts JOIN search_movies s ON s.id = movies_fts.rowid JOIN movies m ON m.id = s.movie_id`,
		`movies_fts`, `m.title COLLATE NOCASE, m.id`)
	if !ok {
		return domain.Paged[search.MovieHit]{Page: q.Page, Items: []search.MovieHit{}}, nil
	}
	if q.Genre != "" {
		sq.filter(`EXISTS (SELECT 1 FROM json_each(m.genres) WHERE value = ? COLLATE NOCASE)`, q.Genre)
	}
	if q.Year != nil {
		sq.filter(`m.release_year = ?`, *q.Year)
	}
	if q.Language != "" {
		sq.filter(`m.original_language = ? COLLATE NOCASE`, q.Language)
	}
	if q.PersonID != nil {
		sq.filter(`EXISTS (SELECT 1 FROM movie_credits c WHERE c.movie_id = m.id AND c.person_id = ?)`, q.PersonID.String())
	}
	out, err := searchPage(ctx, s.read, sq, sqlrow.MovieHitColumns, q.Page, sqlrow.MovieHit.Hit)
	if err != nil {
		return out, fmt.Errorf("search movies: %w", err)
	}
	return out, nil
}

// personHitColumns are the columns of sqlrow.PersonHit: a person and up to three titles they are
// known for.
const personHitColumns = `p.id, p.name, p.known_for_department, p.profile_path,
	(SELECT json_group_array(title) FROM (SELECT m.title FROM movie_credits c JOIN movies m ON m.id = c.movie_id
		WHERE c.person_id = p.id GROUP BY m.id ORDER BY min(c.billing_order) IS NULL, m.release_year DESC, m.title LIMIT 3))
		AS known_for_titles`

// SearchPeople pages the people matching q's text and department, best match first.
func (s *Store) SearchPeople(ctx context.Context, q search.Query) (domain.Paged[search.PersonHit], error) {
	sq, ok := newSearchSQL(q.Text, ` FROM search_people s JOIN people p ON p.id = s.person_id`,
		` FROM people_fts JOIN search_people s ON s.id = people_fts.rowid JOIN people p ON p.id = s.person_id`,
		`people_fts`, `p.name COLLATE NOCASE, p.id`)
	if !ok {
		return domain.Paged[search.PersonHit]{Page: q.Page, Items: []search.PersonHit{}}, nil
	}
	if q.Department != "" {
		sq.filter(`p.known_for_department = ? COLLATE NOCASE`, q.Department)
	}
	out, err := searchPage(ctx, s.read, sq, personHitColumns, q.Page, sqlrow.PersonHit.Hit)
	if err != nil {
		return out, fmt.Errorf("search people: %w", err)
	}
	return out, nil
}
