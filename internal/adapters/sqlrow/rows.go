package sqlrow

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MovieColumns are the columns of Movie, for a movies table aliased m.
const MovieColumns = `m.id, m.external_metadata_id, m.title, m.release_year, m.director, m.poster_path,
	m.genres, m.runtime_minutes, m.original_language, m.overview, m.collection_name`

// MovieColumnsAsMovie are MovieColumns named for a Movie field tagged "movie", in a join
// with a reviews table whose columns (id) share the names.
const MovieColumnsAsMovie = `m.id AS "movie.id", m.external_metadata_id AS "movie.external_metadata_id",
	m.title AS "movie.title", m.release_year AS "movie.release_year", m.director AS "movie.director",
	m.poster_path AS "movie.poster_path", m.genres AS "movie.genres", m.runtime_minutes AS "movie.runtime_minutes",
	m.original_language AS "movie.original_language", m.overview AS "movie.overview",
	m.collection_name AS "movie.collection_name"`

// Movie is a movies row.
type Movie struct {
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

// Movie maps the row to its domain movie.
func (r Movie) Movie() (domain.Movie, error) {
	m := domain.Movie{
		ID: r.ID, ExternalID: Ptr(r.ExternalID), Title: r.Title, ReleaseYear: r.ReleaseYear.V, Director: Ptr(r.Director),
		PosterPath: Ptr(r.PosterPath), RuntimeMinutes: Ptr(r.RuntimeMinutes), OriginalLanguage: Ptr(r.OriginalLanguage),
		Overview: Ptr(r.Overview), CollectionName: Ptr(r.CollectionName), Genres: []string{},
	}
	if r.Genres != "" {
		if err := json.Unmarshal([]byte(r.Genres), &m.Genres); err != nil {
			return domain.Movie{}, fmt.Errorf("movie %s genres: %w", r.ID, err)
		}
	}
	return m, nil
}

// ReviewColumns are the columns of Review, for a reviews table aliased r.
const ReviewColumns = `r.id, r.user_id, r.movie_id, r.rating, r.rating_precise, r.rewatch, r.comment, r.watched_at, r.watch_medium,
	r.remote_actor_url, r.created_at, r.updated_at, r.quiet`

// Review is a reviews row.
type Review struct {
	ID             uuid.UUID         `db:"id"`
	UserID         uuid.UUID         `db:"user_id"`
	MovieID        uuid.UUID         `db:"movie_id"`
	Rating         int               `db:"rating"`
	RatingPrecise  sql.Null[float64] `db:"rating_precise"`
	Rewatch        bool              `db:"rewatch"`
	Comment        sql.Null[string]  `db:"comment"`
	WatchedAt      string            `db:"watched_at"`
	WatchMedium    sql.Null[string]  `db:"watch_medium"`
	RemoteActorURL sql.Null[string]  `db:"remote_actor_url"`
	CreatedAt      string            `db:"created_at"`
	UpdatedAt      string            `db:"updated_at"`
	Quiet          bool              `db:"quiet"`
}

// Review maps the row to its domain review.
func (r Review) Review() (domain.Review, error) {
	rv := domain.Review{
		ID: r.ID, UserID: r.UserID, MovieID: r.MovieID, Rating: r.Rating, RatingPrecise: Ptr(r.RatingPrecise),
		Rewatch: r.Rewatch, Comment: Ptr(r.Comment), RemoteActorURL: Ptr(r.RemoteActorURL), Quiet: r.Quiet,
	}
	if r.WatchMedium.Valid {
		rv.WatchMedium = Ref(domain.WatchMedium(r.WatchMedium.V))
	}
	var errs [3]error
	rv.WatchedAt, errs[0] = ParseTime(r.WatchedAt)
	rv.CreatedAt, errs[1] = ParseTime(r.CreatedAt)
	rv.UpdatedAt, errs[2] = ParseTime(r.UpdatedAt)
	for _, err := range errs {
		if err != nil {
			return domain.Review{}, fmt.Errorf("review %s: %w", r.ID, err)
		}
	}
	return rv, nil
}

// ReviewMovie is a review and its movie, selected with ReviewColumns and MovieColumnsAsMovie.
type ReviewMovie struct {
	Review
	Movie Movie `db:"movie"`
}

// MapRows converts rows to domain values with conv, stopping at the first error. No rows give
// nil, as a scan loop did.
func MapRows[R, T any](rows []R, conv func(R) (T, error)) ([]T, error) {
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

// CastRows is MapRows for conversions that cannot fail.
func CastRows[R, T any](rows []R, conv func(R) T) []T {
	if len(rows) == 0 {
		return nil
	}
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		out = append(out, conv(r))
	}
	return out
}

// PageOf returns an empty slice with room for the rows of page p out of total: sqlx appends
// each row it scans, and regrowing a slice of wide row structs copies every row again.
func PageOf[R any](p domain.Page, total int) []R {
	return make([]R, 0, max(0, min(p.Limit, total-p.Offset)))
}
