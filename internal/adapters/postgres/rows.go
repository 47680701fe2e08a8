package postgres

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Row structs are what sqlx scans a query into, column by name, as in the SQLite adapter: they
// stay in the adapter, each converts to its domain type in a small method, and a nullable column
// is a sql.Null turned into the domain's pointer by ptr.

// mapRows converts rows to domain values with conv, stopping at the first error. No rows give
// nil.
func mapRows[R, T any](rows []R, conv func(R) (T, error)) ([]T, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		v, err := conv(r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// castRows is mapRows for conversions that cannot fail.
func castRows[R, T any](rows []R, conv func(R) T) []T {
	if len(rows) == 0 {
		return nil
	}
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		out = append(out, conv(r))
	}
	return out
}

// movieColumns are the columns of movieRow, for a movies table aliased m.
const movieColumns = `m.id, m.external_metadata_id, m.title, m.release_year, m.director, m.poster_path,
	m.genres, m.runtime_minutes, m.original_language, m.overview, m.collection_name`

// movieColumnsAsMovie are movieColumns named for a movieRow field tagged "movie", in a join
// with a reviews table whose columns (id) share the names.
const movieColumnsAsMovie = `m.id AS "movie.id", m.external_metadata_id AS "movie.external_metadata_id",
	m.title AS "movie.title", m.release_year AS "movie.release_year", m.director AS "movie.director",
	m.poster_path AS "movie.poster_path", m.genres AS "movie.genres", m.runtime_minutes AS "movie.runtime_minutes",
	m.original_language AS "movie.original_language", m.overview AS "movie.overview",
	m.collection_name AS "movie.collection_name"`

// movieRow is a movies row.
type movieRow struct {
	ID               uuid.UUID        `db:"id"`
	ExternalID       sql.Null[string] `db:"external_metadata_id"`
	Title            string           `db:"title"`
	ReleaseYear      sql.Null[int]    `db:"release_year"`
	Director         sql.Null[string] `db:"director"`
	PosterPath       sql.Null[string] `db:"poster_path"`
	Genres           string           `db:"genres"` // a JSON array
	RuntimeMinutes   sql.Null[int]    `db:"runtime_minutes"`
	OriginalLanguage sql.Null[string] `db:"original_language"`
	Overview         sql.Null[string] `db:"overview"`
	CollectionName   sql.Null[string] `db:"collection_name"`
}

func (r movieRow) movie() (domain.Movie, error) {
	m := domain.Movie{
		ID: r.ID, ExternalID: ptr(r.ExternalID), Title: r.Title, ReleaseYear: r.ReleaseYear.V, Director: ptr(r.Director),
		PosterPath: ptr(r.PosterPath), RuntimeMinutes: ptr(r.RuntimeMinutes), OriginalLanguage: ptr(r.OriginalLanguage),
		Overview: ptr(r.Overview), CollectionName: ptr(r.CollectionName), Genres: []string{},
	}
	if r.Genres != "" {
		if err := json.Unmarshal([]byte(r.Genres), &m.Genres); err != nil {
			return domain.Movie{}, fmt.Errorf("movie %s genres: %w", r.ID, err)
		}
	}
	return m, nil
}

// reviewColumns are the columns of reviewRow, for a reviews table aliased r.
const reviewColumns = `r.id, r.user_id, r.movie_id, r.rating, r.comment, r.watched_at, r.watch_medium,
	r.remote_actor_url, r.created_at, r.updated_at, r.quiet`

// reviewRow is a reviews row.
type reviewRow struct {
	ID             uuid.UUID        `db:"id"`
	UserID         uuid.UUID        `db:"user_id"`
	MovieID        uuid.UUID        `db:"movie_id"`
	Rating         int              `db:"rating"`
	Comment        sql.Null[string] `db:"comment"`
	WatchedAt      string           `db:"watched_at"`
	WatchMedium    sql.Null[string] `db:"watch_medium"`
	RemoteActorURL sql.Null[string] `db:"remote_actor_url"`
	CreatedAt      string           `db:"created_at"`
	UpdatedAt      string           `db:"updated_at"`
	Quiet          bool             `db:"quiet"`
}

func (r reviewRow) review() (domain.Review, error) {
	rv := domain.Review{
		ID: r.ID, UserID: r.UserID, MovieID: r.MovieID, Rating: r.Rating, Comment: ptr(r.Comment),
		RemoteActorURL: ptr(r.RemoteActorURL), Quiet: r.Quiet,
	}
	if r.WatchMedium.Valid {
		rv.WatchMedium = ref(domain.WatchMedium(r.WatchMedium.V))
	}
	var errs [3]error
	rv.WatchedAt, errs[0] = parseTime(r.WatchedAt)
	rv.CreatedAt, errs[1] = parseTime(r.CreatedAt)
	rv.UpdatedAt, errs[2] = parseTime(r.UpdatedAt)
	for _, err := range errs {
		if err != nil {
			return domain.Review{}, fmt.Errorf("review %s: %w", r.ID, err)
		}
	}
	return rv, nil
}

// reviewMovieRow is a review and its movie, selected with reviewColumns and movieColumnsAsMovie.
type reviewMovieRow struct {
	reviewRow
	Movie movieRow `db:"movie"`
}

// ref returns a pointer to v.
func ref[T any](v T) *T { return &v }

// pageOf returns an empty slice with room for the rows of page p out of total.
func pageOf[R any](p domain.Page, total int) []R {
	return make([]R, 0, max(0, min(p.Limit, total-p.Offset)))
}

// parseOptionalTime parses a nullable time column.
func parseOptionalTime(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := parseTime(*s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// nullOf maps a pointer to a nullable column value (the inverse of ptr).
func nullOf[T any](p *T) sql.Null[T] {
	if p == nil {
		return sql.Null[T]{}
	}
	return sql.Null[T]{V: *p, Valid: true}
}
