package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
)

// TextMatch is what a search of free text adds to a query over the documents s of a search
// table, as the engine matches text (Dialect.SearchMatch): the FROM clause that replaces
// "FROM <table> s", the condition with its argument, and the order, best match first, with its
// arguments. CountFrom, when set, counts the matches alone when no other condition applies.
type TextMatch struct {
	From, Cond string
	Arg        any
	Order      string
	OrderArgs  []any
	CountFrom  string
}

// searchWords are text's words as a search matches them: letters and digits only (so no input
// is the engine's query syntax), at most 16. None: the text has no word, and nothing matches.
func searchWords(text string) []string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	return words[:min(len(words), 16)]
}

// searchQuery is one search being built: its tables, conditions and their arguments, and its
// order.
type searchQuery struct {
	from, countFrom string
	where           []string
	args            []any
	order           string
	orderArgs       []any
}

// newSearch starts a search over the documents of table joined by join: all of them ordered
// by order when text is blank, or those matching its words, best first. ok is false when the
// text is not blank but has no word: nothing can match.
func (s *Store) newSearch(text, table, join, order string) (q searchQuery, ok bool) {
	q = searchQuery{from: ` FROM ` + table + ` s ` + join, order: order}
	if strings.TrimSpace(text) == "" {
		return q, true
	}
	words := searchWords(text)
	if len(words) == 0 {
		return q, false
	}
	m := s.d.SearchMatch(table, words, order)
	q.from, q.order, q.orderArgs = m.From+` `+join, m.Order, m.OrderArgs
	if m.CountFrom != "" {
		q.countFrom = m.CountFrom
	}
	q.filter(m.Cond, m.Arg)
	return q, true
}

// filter adds a condition and its argument.
func (q *searchQuery) filter(cond string, arg any) {
	q.where, q.args = append(q.where, cond), append(q.args, arg)
}

// searchPage counts the matches of q and returns the page's rows of cols, selected into R and
// converted by conv.
func searchPage[R, T any](ctx context.Context, db *DB, q searchQuery, cols string, p domain.Page,
	conv func(R) (T, error)) (domain.Paged[T], error) {
	out := domain.Paged[T]{Page: p, Items: []T{}}
	w := ""
	if len(q.where) > 0 {
		w = ` WHERE ` + strings.Join(q.where, ` AND `)
	}
	count := `SELECT count(*)` + q.from + w
	if q.countFrom != "" && len(q.where) == 1 {
		count = `SELECT count(*) ` + q.countFrom + w
	}
	if err := db.GetContext(ctx, &out.Total, count, q.args...); err != nil {
		return out, err
	}
	rows := sqlrow.PageOf[R](p, out.Total)
	args := append(append(append([]any{}, q.args...), q.orderArgs...), p.Limit, p.Offset)
	if err := db.SelectContext(ctx, &rows, `SELECT `+cols+q.from+w+` ORDER BY `+q.order+
		` LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`, args...); err != nil {
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
	sq, ok := s.newSearch(q.Text, `search_movies`, `JOIN movies m ON m.id = s.movie_id`,
		s.d.Binary(s.d.NoCase("m.title"))+`, m.id`)
	if !ok {
		return domain.Paged[search.MovieHit]{Page: q.Page, Items: []search.MovieHit{}}, nil
	}
	if q.Genre != "" {
		sq.filter(`EXISTS (SELECT 1 FROM `+s.d.JSONElements("m.genres", "g")+` WHERE `+s.d.SameText("g.value")+`)`, q.Genre)
	}
	if q.Year != nil {
		sq.filter(`m.release_year = ?`, *q.Year)
	}
	if q.Language != "" {
		sq.filter(s.d.SameText("m.original_language"), q.Language)
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

// SearchPeople pages the people matching q's text and department, best match first.
func (s *Store) SearchPeople(ctx context.Context, q search.Query) (domain.Paged[search.PersonHit], error) {
	sq, ok := s.newSearch(q.Text, `search_people`, `JOIN people p ON p.id = s.person_id`,
		s.d.Binary(s.d.NoCase("p.name"))+`, p.id`)
	if !ok {
		return domain.Paged[search.PersonHit]{Page: q.Page, Items: []search.PersonHit{}}, nil
	}
	if q.Department != "" {
		sq.filter(s.d.SameText("p.known_for_department"), q.Department)
	}
	out, err := searchPage(ctx, s.read, sq, s.d.PersonHitColumns(), q.Page, sqlrow.PersonHit.Hit)
	if err != nil {
		return out, fmt.Errorf("search people: %w", err)
	}
	return out, nil
}
