package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// movieColumns are the columns movieRow scans, for a movies table aliased m.
const movieColumns = `m.id, m.external_metadata_id, m.title, m.release_year, m.director, m.poster_path,
	m.genres, m.runtime_minutes, m.original_language, m.overview, m.collection_name`

// movieRow is a movies row as scanned.
type movieRow struct {
	id, title, genres                          string
	ext, director, poster, lang, overview, col sql.Null[string]
	year, runtime                              sql.Null[int]
}

func (r *movieRow) dest() []any {
	return []any{&r.id, &r.ext, &r.title, &r.year, &r.director, &r.poster, &r.genres, &r.runtime, &r.lang,
		&r.overview, &r.col}
}

func (r *movieRow) movie() (domain.Movie, error) {
	id, err := uuid.Parse(r.id)
	if err != nil {
		return domain.Movie{}, fmt.Errorf("movie id %q: %w", r.id, err)
	}
	m := domain.Movie{
		ID: id, ExternalID: ptr(r.ext), Title: r.title, ReleaseYear: r.year.V, Director: ptr(r.director),
		PosterPath: ptr(r.poster), RuntimeMinutes: ptr(r.runtime), OriginalLanguage: ptr(r.lang),
		Overview: ptr(r.overview), CollectionName: ptr(r.col), Genres: []string{},
	}
	if r.genres != "" {
		if err := json.Unmarshal([]byte(r.genres), &m.Genres); err != nil {
			return domain.Movie{}, fmt.Errorf("movie %s genres: %w", id, err)
		}
	}
	return m, nil
}

// reviewColumns are the columns reviewRow scans, for a reviews table aliased r.
const reviewColumns = `r.id, r.user_id, r.movie_id, r.rating, r.comment, r.watched_at, r.watch_medium,
	r.remote_actor_url, r.created_at, r.updated_at`

// reviewRow is a reviews row as scanned.
type reviewRow struct {
	id, user, movie, watched, created, updated string
	rating                                     int
	comment, medium, remote                    sql.Null[string]
}

func (r *reviewRow) dest() []any {
	return []any{&r.id, &r.user, &r.movie, &r.rating, &r.comment, &r.watched, &r.medium, &r.remote,
		&r.created, &r.updated}
}

func (r *reviewRow) review() (domain.Review, error) {
	var (
		rv   domain.Review
		errs [6]error
	)
	rv.ID, errs[0] = uuid.Parse(r.id)
	rv.UserID, errs[1] = uuid.Parse(r.user)
	rv.MovieID, errs[2] = uuid.Parse(r.movie)
	rv.WatchedAt, errs[3] = parseTime(r.watched)
	rv.CreatedAt, errs[4] = parseTime(r.created)
	rv.UpdatedAt, errs[5] = parseTime(r.updated)
	for _, err := range errs {
		if err != nil {
			return domain.Review{}, fmt.Errorf("review %s: %w", r.id, err)
		}
	}
	rv.Rating, rv.Comment, rv.RemoteActorURL = r.rating, ptr(r.comment), ptr(r.remote)
	if r.medium.Valid {
		m := domain.WatchMedium(r.medium.V)
		rv.WatchMedium = &m
	}
	return rv, nil
}

// scanAll reads every row of rows with scan.
func scanAll[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
