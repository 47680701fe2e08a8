package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
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

// deleteOrphanPeopleDocs removes the documents of people left without any credit.
const deleteOrphanPeopleDocs = `DELETE FROM search_people
	WHERE NOT EXISTS (SELECT 1 FROM movie_credits c WHERE c.person_id = search_people.person_id)`

// indexMovieTx upserts a movie's document and its people's, inside tx.
func indexMovieTx(ctx context.Context, tx *sqlx.Tx, id uuid.UUID) error {
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(upsertMovieDocs, `m.id = $1`), id.String()); err != nil {
		return fmt.Errorf("index movie: %w", err)
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf(upsertPeopleDocs, `p.id IN (SELECT person_id FROM movie_credits WHERE movie_id = $1)`), id.String())
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
		err := s.db.GetContext(ctx, &indexed, `SELECT EXISTS (SELECT 1 FROM search_movies WHERE movie_id = $1)`, id.String())
		if err != nil {
			return fmt.Errorf("index movie: %w", err)
		}
		if indexed {
			return nil
		}
	}
	return s.write(ctx, func(tx *sqlx.Tx) error { return indexMovieTx(ctx, tx, id) })
}

// RemoveMovie deletes a movie's document and the documents of people left without credits.
func (s *Store) RemoveMovie(ctx context.Context, id uuid.UUID) error {
	return s.write(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_movies WHERE movie_id = $1`, id.String()); err != nil {
			return fmt.Errorf("remove movie from search: %w", err)
		}
		if _, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs); err != nil {
			return fmt.Errorf("remove orphan people from search: %w", err)
		}
		return nil
	})
}

// Reindex rebuilds every document from the current rows, a page of movies (then of people) per
// transaction, so no transaction holds many rows for long.
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
			err := s.db.GetContext(ctx, &span, `SELECT min(id) AS first, max(id) AS last FROM (SELECT id FROM `+t.table+`
				WHERE id > $1 ORDER BY id LIMIT $2) t`, after, page)
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			if span.Last == nil {
				break
			}
			err = s.write(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, fmt.Sprintf(t.upsert, t.col+` BETWEEN $1 AND $2`), *span.First, *span.Last)
				return err
			})
			if err != nil {
				return fmt.Errorf("reindex %s: %w", t.table, err)
			}
			after = *span.Last
		}
	}
	return s.write(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, deleteOrphanPeopleDocs)
		return err
	})
}

// tsQuery turns free text into a to_tsquery expression: every word must match, the last one as
// a prefix (search as you type), as the SQLite store's FTS5 query. Words are letters and digits
// only, quoted as lexemes, so no input is tsquery syntax. ok is false when the text has no word
// at all.
func tsQuery(text string) (expr string, ok bool) {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return "", false
	}
	if len(words) > 16 {
		words = words[:16]
	}
	for i, w := range words {
		words[i] = `'` + w + `'`
	}
	return strings.Join(words, " & ") + ":*", true
}

// searchTitleOrder orders movies by title without case, then id, as SQLite's
// "m.title COLLATE NOCASE, m.id" does for ASCII titles (the byte order of the lowered title,
// whatever the database's collation).
const searchTitleOrder = `lower(m.title) COLLATE "C", m.id`

// searchWeights are ts_rank's weights of the classes D, C, B, A (overview and crew; genres and
// keywords; director and cast; title): FTS5's bm25 column weights, in the same proportions.
const searchWeights = `'{0.1, 0.2, 0.35, 1.0}'`

// searchSQL is one search being built: its tables, conditions and their arguments ($1 is the
// text's tsquery when there is one), and its order.
type searchSQL struct {
	from, order string
	where       []string
	args        []any
}

// newSearchSQL starts a search over from: all documents ordered by order, or, when text has
// words, those matching them, best rank first (ties in order). ok is false when the text is not
// blank but has no word: nothing can match.
func newSearchSQL(text, from, order string) (q searchSQL, ok bool) {
	q = searchSQL{from: from, order: ` ORDER BY ` + order}
	if strings.TrimSpace(text) == "" {
		return q, true
	}
	expr, ok := tsQuery(text)
	if !ok {
		return q, false
	}
	q.filter(`s.document @@ to_tsquery('moviesdiary_search', %s)`, expr)
	q.order = ` ORDER BY ts_rank(` + searchWeights + `, s.document, to_tsquery('moviesdiary_search', $1)) DESC, ` + order
	return q, true
}

// filter adds a condition whose %s is arg's parameter.
func (q *searchSQL) filter(cond string, arg any) {
	q.args = append(q.args, arg)
	q.where = append(q.where, fmt.Sprintf(cond, "$"+strconv.Itoa(len(q.args))))
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
	if err := db.GetContext(ctx, &out.Total, `SELECT count(*)`+q.from+w, q.args...); err != nil {
		return out, err
	}
	rows := sqlrow.PageOf[R](p, out.Total)
	n := len(q.args)
	if err := db.SelectContext(ctx, &rows, `SELECT `+cols+q.from+w+q.order+` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2),
		append(q.args, p.Limit, p.Offset)...); err != nil {
		return out, err
	}
	items, err := sqlrow.MapRows(rows, conv)
	if items != nil {
		out.Items = items
	}
	return out, err
}

// SearchMovies pages the movies matching q's text and filters, best match first. Genre and
// language compare without case.
func (s *Store) SearchMovies(ctx context.Context, q search.Query) (domain.Paged[search.MovieHit], error) {
	sq, ok := newSearchSQL(q.Text, ` FROM search_movies s JOIN movies m ON m.id = s.movie_id`, searchTitleOrder)
	if !ok {
		return domain.Paged[search.MovieHit]{Page: q.Page, Items: []search.MovieHit{}}, nil
	}
	if q.Genre != "" {
		sq.filter(`EXISTS (SELECT 1 FROM jsonb_array_elements_text(m.genres::jsonb) g WHERE lower(g) = lower(%s))`, q.Genre)
	}
	if q.Year != nil {
		sq.filter(`m.release_year = %s`, *q.Year)
	}
	if q.Language != "" {
		sq.filter(`lower(m.original_language) = lower(%s)`, q.Language)
	}
	if q.PersonID != nil {
		sq.filter(`EXISTS (SELECT 1 FROM movie_credits c WHERE c.movie_id = m.id AND c.person_id = %s)`, q.PersonID.String())
	}
	out, err := searchPage(ctx, s.db, sq, sqlrow.MovieHitColumns, q.Page, sqlrow.MovieHit.Hit)
	if err != nil {
		return out, fmt.Errorf("search movies: %w", err)
	}
	return out, nil
}

// personHitColumns are the columns of sqlrow.PersonHit: a person and up to three titles they are
// known for (billed credits first, then the newest movie).
const personHitColumns = `p.id, p.name, p.known_for_department, p.profile_path,
	(SELECT COALESCE(json_agg(k.title ORDER BY k.unbilled, k.release_year DESC NULLS LAST, k.title COLLATE "C"), '[]')::text
		FROM (SELECT m.title, m.release_year, min(c.billing_order) IS NULL AS unbilled
			FROM movie_credits c JOIN movies m ON m.id = c.movie_id WHERE c.person_id = p.id GROUP BY m.id
			ORDER BY unbilled, m.release_year DESC NULLS LAST, m.title COLLATE "C" LIMIT 3) k) AS known_for_titles`

// SearchPeople pages the people matching q's text and department, best match first.
func (s *Store) SearchPeople(ctx context.Context, q search.Query) (domain.Paged[search.PersonHit], error) {
	sq, ok := newSearchSQL(q.Text, ` FROM search_people s JOIN people p ON p.id = s.person_id`, `lower(p.name) COLLATE "C", p.id`)
	if !ok {
		return domain.Paged[search.PersonHit]{Page: q.Page, Items: []search.PersonHit{}}, nil
	}
	if q.Department != "" {
		sq.filter(`lower(p.known_for_department) = lower(%s)`, q.Department)
	}
	out, err := searchPage(ctx, s.db, sq, personHitColumns, q.Page, sqlrow.PersonHit.Hit)
	if err != nil {
		return out, fmt.Errorf("search people: %w", err)
	}
	return out, nil
}
