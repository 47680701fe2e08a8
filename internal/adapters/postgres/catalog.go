package postgres

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
// original language, all without case (SQLite's LIKE and NOCASE: ILIKE and lower() here).
func (s *Store) Movies(ctx context.Context, f movie.Filter, p domain.Page) (domain.Paged[domain.Movie], error) {
	where := []string{`true`}
	var args []any
	if f.Search != "" {
		args = append(args, "%"+sqlrow.EscapeLike(f.Search)+"%")
		where = append(where, `m.title ILIKE `+param(len(args))+` ESCAPE '\'`)
	}
	if f.Genre != "" {
		args = append(args, f.Genre)
		where = append(where, `EXISTS (SELECT 1 FROM jsonb_array_elements_text(m.genres::jsonb) AS g (value)
			WHERE lower(g.value) = lower(`+param(len(args))+`))`)
	}
	if f.Language != "" {
		args = append(args, f.Language)
		where = append(where, `m.original_language = `+param(len(args)))
	}
	w := ` FROM movies m WHERE ` + strings.Join(where, ` AND `)
	out := domain.Paged[domain.Movie]{Page: p}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*)`+w, args...); err != nil {
		return out, fmt.Errorf("count movies: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Movie](p, out.Total)
	err := s.db.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+w+` ORDER BY lower(m.title), m.id LIMIT `+param(len(args)+1)+` OFFSET `+param(len(args)+2),
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
		ratingsRow
	}
	// The totals the triggers of migration 0200 keep; a movie with no review has no row.
	err := s.db.GetContext(ctx, &row, `SELECT n AS total, CASE WHEN n > 0 THEN rating_sum::float8 / n END AS avg_rating,
		federated, r1, r2, r3, r4, r5 FROM movie_review_stats WHERE movie_id = $1`, id.String())
	if errors.Is(err, sql.ErrNoRows) {
		return movie.Stats{}, nil
	}
	if err != nil {
		return movie.Stats{}, fmt.Errorf("movie stats: %w", err)
	}
	return movie.Stats{TotalCount: row.Total, AvgRating: sqlrow.Ptr(row.Avg), FederatedCount: row.Federated, Histogram: row.histogram()}, nil
}

// viewingRow is a review on a movie page with its author's name.
type viewingRow struct {
	sqlrow.Review
	UserDisplay string `db:"user_display"`
}

func (r viewingRow) viewing() (movie.Viewing, error) {
	rv, err := r.Review.Review()
	return movie.Viewing{UserDisplay: r.UserDisplay, Review: rv}, err
}

// MovieReviews returns a page of a movie's reviews, newest viewing first.
func (s *Store) MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error) {
	out := domain.Paged[movie.Viewing]{Page: p}
	var err error
	err = s.db.GetContext(ctx, &out.Total, `SELECT n FROM movie_review_stats WHERE movie_id = $1`, id.String())
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("count movie reviews: %w", err)
	}
	rows := sqlrow.PageOf[viewingRow](p, out.Total)
	err = s.db.SelectContext(ctx, &rows, `SELECT `+sqlrow.ReviewColumns+`, COALESCE(u.username::text, r.remote_actor_url, '') AS user_display
		FROM reviews r LEFT JOIN users u ON u.id = r.user_id WHERE r.movie_id = $1
		ORDER BY r.watched_at DESC, r.id DESC LIMIT $2 OFFSET $3`, id.String(), p.Limit, p.Offset)
	if err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, viewingRow.viewing); err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	return out, nil
}

// MovieProfile returns the enrichment document stored for a movie.
func (s *Store) MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error) {
	var doc string
	if err := s.db.GetContext(ctx, &doc, `SELECT profile FROM movie_profiles WHERE movie_id = $1`, id.String()); err != nil {
		return nil, sqlrow.NotFound(err, "Entity not found: movie profile (not enriched yet)")
	}
	return json.RawMessage(doc), nil
}

// personColumns are the columns of personRow.
const personColumns = `id, external_id, name, known_for_department, profile_path, biography, birthday, deathday,
	place_of_birth, homepage, imdb_id, enriched_at, enrichment_requested_at`

// personRow is a people row.
type personRow struct {
	ID                 uuid.UUID        `db:"id"`
	ExternalID         string           `db:"external_id"`
	Name               string           `db:"name"`
	KnownForDepartment sql.Null[string] `db:"known_for_department"`
	ProfilePath        sql.Null[string] `db:"profile_path"`
	Biography          sql.Null[string] `db:"biography"`
	Birthday           sql.Null[string] `db:"birthday"`
	Deathday           sql.Null[string] `db:"deathday"`
	PlaceOfBirth       sql.Null[string] `db:"place_of_birth"`
	Homepage           sql.Null[string] `db:"homepage"`
	IMDbID             sql.Null[string] `db:"imdb_id"`
	EnrichedAt         sql.Null[string] `db:"enriched_at"`
	RequestedAt        sql.Null[string] `db:"enrichment_requested_at"`
}

func (r personRow) person() movie.Person {
	return movie.Person{
		ID: r.ID, ExternalID: r.ExternalID, Name: r.Name, KnownForDepartment: sqlrow.Ptr(r.KnownForDepartment),
		ProfilePath: sqlrow.Ptr(r.ProfilePath), Biography: sqlrow.Ptr(r.Biography), Birthday: sqlrow.Ptr(r.Birthday),
		Deathday: sqlrow.Ptr(r.Deathday), PlaceOfBirth: sqlrow.Ptr(r.PlaceOfBirth), Homepage: sqlrow.Ptr(r.Homepage), IMDbID: sqlrow.Ptr(r.IMDbID),
		Enriched: r.EnrichedAt.Valid, EnrichmentRequested: r.RequestedAt.Valid,
	}
}

// Person returns a person.
func (s *Store) Person(ctx context.Context, id uuid.UUID) (movie.Person, error) {
	var row personRow
	if err := s.db.GetContext(ctx, &row, `SELECT `+personColumns+` FROM people WHERE id = $1`, id.String()); err != nil {
		return movie.Person{}, sqlrow.NotFound(err, "Entity not found: person")
	}
	return row.person(), nil
}

// creditRow is a person's credit with its movie.
type creditRow struct {
	sqlrow.Movie
	Kind       string           `db:"kind"`
	Role       string           `db:"role"`
	Department sql.Null[string] `db:"department"`
}

func (r creditRow) credit() (movie.Credit, error) {
	m, err := r.Movie.Movie()
	return movie.Credit{Movie: m, Cast: r.Kind == "cast", Role: r.Role, Department: sqlrow.Ptr(r.Department)}, err
}

// PersonCredits returns a person's credits, newest movie first.
func (s *Store) PersonCredits(ctx context.Context, id uuid.UUID) ([]movie.Credit, error) {
	var rows []creditRow
	err := s.db.SelectContext(ctx, &rows, `SELECT `+sqlrow.MovieColumns+`, c.kind, c.role, c.department
		FROM movie_credits c JOIN movies m ON m.id = c.movie_id WHERE c.person_id = $1
		ORDER BY m.release_year DESC NULLS LAST, m.title COLLATE "C", c.billing_order`, id.String())
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	credits, err := sqlrow.MapRows(rows, creditRow.credit)
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	return credits, nil
}
