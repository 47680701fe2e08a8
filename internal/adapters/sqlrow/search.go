package sqlrow

import (
	"database/sql"
	"encoding/json"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/search"
)

// MovieHitColumns are the columns of MovieHit.
const MovieHitColumns = `m.id, m.title, m.release_year, m.director, m.poster_path, m.genres`

// MovieHit is a movie found.
type MovieHit struct {
	ID          uuid.UUID        `db:"id"`
	Title       string           `db:"title"`
	ReleaseYear sql.Null[int]    `db:"release_year"`
	Director    sql.Null[string] `db:"director"`
	PosterPath  sql.Null[string] `db:"poster_path"`
	Genres      string           `db:"genres"` // a JSON array
}

// Hit maps the row to its domain value.
func (r MovieHit) Hit() (search.MovieHit, error) {
	h := search.MovieHit{ID: r.ID, Title: r.Title, ReleaseYear: r.ReleaseYear.V, Director: Ptr(r.Director),
		PosterPath: Ptr(r.PosterPath), Genres: []string{}}
	if r.Genres != "" {
		_ = json.Unmarshal([]byte(r.Genres), &h.Genres)
	}
	return h, nil
}

// PersonHit is a person found.
type PersonHit struct {
	ID                 uuid.UUID        `db:"id"`
	Name               string           `db:"name"`
	KnownForDepartment sql.Null[string] `db:"known_for_department"`
	ProfilePath        sql.Null[string] `db:"profile_path"`
	KnownForTitles     string           `db:"known_for_titles"` // a JSON array
}

// Hit maps the row to its domain value.
func (r PersonHit) Hit() (search.PersonHit, error) {
	h := search.PersonHit{ID: r.ID, Name: r.Name, KnownForDepartment: Ptr(r.KnownForDepartment),
		ProfilePath: Ptr(r.ProfilePath), KnownForTitles: []string{}}
	_ = json.Unmarshal([]byte(r.KnownForTitles), &h.KnownForTitles)
	return h, nil
}
