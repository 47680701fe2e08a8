package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Movies returns a page of movies by title, filtered by a title substring, a genre and an
// original language.
func (s *Store) Movies(ctx context.Context, f movie.Filter, p domain.Page) (domain.Paged[domain.Movie], error) {
	where := []string{`1 = 1`}
	var args []any
	if f.Search != "" {
		where, args = append(where, `m.title `+s.d.Like()+` ? ESCAPE '\'`), append(args, "%"+sqlrow.EscapeLike(f.Search)+"%")
	}
	if f.Genre != "" {
		where = append(where, `EXISTS (SELECT 1 FROM `+s.d.JSONElements("m.genres", "g")+` WHERE `+s.d.SameText("g.value")+`)`)
		args = append(args, f.Genre)
	}
	if f.Language != "" {
		where, args = append(where, `m.original_language = ?`), append(args, f.Language)
	}
	w := ` FROM movies m WHERE ` + strings.Join(where, ` AND `)
	out := domain.Paged[domain.Movie]{Page: p}
	if err := s.read.GetContext(ctx, &out.Total, `SELECT count(*)`+w, args...); err != nil {
		return out, fmt.Errorf("count movies: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Movie](p, out.Total)
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+w+` ORDER BY `+s.d.NoCase("m.title")+`, m.id LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
		append(args, p.Limit, p.Offset)...)
	if err != nil {
		return out, fmt.Errorf("list movies: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, sqlrow.Movie.Movie); err != nil {
		return out, fmt.Errorf("list movies: %w", err)
	}
	return out, nil
}

// MovieStats counts a movie's reviews, their average and their histogram.
func (s *Store) MovieStats(ctx context.Context, id uuid.UUID) (movie.Stats, error) {
	var row struct {
		Total     int               `db:"total"`
		Avg       sql.Null[float64] `db:"avg_rating"`
		Federated int               `db:"federated"`
		sqlrow.Ratings
	}
	// The totals the triggers of migration 0200 keep, the sum of the movie's rows (PostgreSQL's
	// 0410 spreads them over slots; SQLite keeps one); a movie with no review has no row.
	err := s.read.GetContext(ctx, &row, `SELECT CAST(sum(n) AS BIGINT) AS total,
		CASE WHEN sum(n) > 0 THEN CAST(sum(rating_sum) AS DOUBLE PRECISION) / CAST(sum(n) AS DOUBLE PRECISION) END AS avg_rating,
		CAST(sum(federated) AS BIGINT) AS federated, CAST(sum(r1) AS BIGINT) AS r1, CAST(sum(r2) AS BIGINT) AS r2,
		CAST(sum(r3) AS BIGINT) AS r3, CAST(sum(r4) AS BIGINT) AS r4, CAST(sum(r5) AS BIGINT) AS r5
		FROM movie_review_stats WHERE movie_id = ? GROUP BY movie_id`, id.String())
	if errors.Is(err, sql.ErrNoRows) {
		return movie.Stats{}, nil
	}
	if err != nil {
		return movie.Stats{}, fmt.Errorf("movie stats: %w", err)
	}
	return movie.Stats{TotalCount: row.Total, AvgRating: sqlrow.Ptr(row.Avg), FederatedCount: row.Federated, Histogram: row.Histogram()}, nil
}

// MovieReviews returns a page of a movie's reviews, newest viewing first.
func (s *Store) MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error) {
	out := domain.Paged[movie.Viewing]{Page: p}
	var err error
	err = s.read.GetContext(ctx, &out.Total, `SELECT CAST(COALESCE(sum(n), 0) AS BIGINT) FROM movie_review_stats WHERE movie_id = ?`, id.String())
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("count movie reviews: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Viewing](p, out.Total)
	err = s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.ReviewColumns+`, COALESCE(CAST(u.username AS TEXT), r.remote_actor_url, '') AS user_display
		FROM reviews r LEFT JOIN users u ON u.id = r.user_id WHERE r.movie_id = ?
		ORDER BY r.watched_at DESC, r.id DESC LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`, id.String(), p.Limit, p.Offset)
	if err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, sqlrow.Viewing.Viewing); err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	return out, nil
}

// MovieProfile returns the enrichment document stored for a movie.
func (s *Store) MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error) {
	var doc string
	if err := s.read.GetContext(ctx, &doc, `SELECT profile FROM movie_profiles WHERE movie_id = ?`, id.String()); err != nil {
		return nil, sqlrow.NotFound(err, "Entity not found: movie profile (not enriched yet)")
	}
	return json.RawMessage(doc), nil
}

// Person returns a person.
func (s *Store) Person(ctx context.Context, id uuid.UUID) (movie.Person, error) {
	var row sqlrow.Person
	if err := s.read.GetContext(ctx, &row, `SELECT `+sqlrow.PersonColumns+` FROM people WHERE id = ?`, id.String()); err != nil {
		return movie.Person{}, sqlrow.NotFound(err, "Entity not found: person")
	}
	return row.Person(), nil
}

// PersonCredits returns a person's credits, newest movie first.
func (s *Store) PersonCredits(ctx context.Context, id uuid.UUID) ([]movie.Credit, error) {
	var rows []sqlrow.Credit
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+`, c.kind, c.role, c.department
		FROM movie_credits c JOIN movies m ON m.id = c.movie_id WHERE c.person_id = ?
		ORDER BY m.release_year DESC NULLS LAST, `+s.d.Binary("m.title")+`, c.billing_order`, id.String())
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	credits, err := sqlrow.MapRows(rows, sqlrow.Credit.Credit)
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	return credits, nil
}
