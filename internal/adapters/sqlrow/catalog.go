package sqlrow

import (
	"database/sql"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/movie"
)

// RatingsColumns select a Ratings over reviews.
const RatingsColumns = `count(*) FILTER (WHERE rating = 1) AS r1, count(*) FILTER (WHERE rating = 2) AS r2,
	count(*) FILTER (WHERE rating = 3) AS r3, count(*) FILTER (WHERE rating = 4) AS r4,
	count(*) FILTER (WHERE rating = 5) AS r5`

// Ratings counts reviews by rating, 1 to 5.
type Ratings struct {
	R1 int `db:"r1"`
	R2 int `db:"r2"`
	R3 int `db:"r3"`
	R4 int `db:"r4"`
	R5 int `db:"r5"`
}

// Histogram maps the row to its domain value.
func (r Ratings) Histogram() [5]int { return [5]int{r.R1, r.R2, r.R3, r.R4, r.R5} }

// PersonColumns are the columns of Person.
const PersonColumns = `id, external_id, name, known_for_department, profile_path, biography, birthday, deathday,
	place_of_birth, homepage, imdb_id, enriched_at, enrichment_requested_at, photo_key`

// Person is a people row.
type Person struct {
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
	PhotoKey           sql.Null[string] `db:"photo_key"`
}

// Person maps the row to its domain value.
func (r Person) Person() movie.Person {
	return movie.Person{
		ID: r.ID, ExternalID: r.ExternalID, Name: r.Name, KnownForDepartment: Ptr(r.KnownForDepartment),
		ProfilePath: Ptr(r.ProfilePath), Biography: Ptr(r.Biography), Birthday: Ptr(r.Birthday),
		Deathday: Ptr(r.Deathday), PlaceOfBirth: Ptr(r.PlaceOfBirth), Homepage: Ptr(r.Homepage), IMDbID: Ptr(r.IMDbID),
		Enriched: r.EnrichedAt.Valid, EnrichmentRequested: r.RequestedAt.Valid, PhotoKey: Ptr(r.PhotoKey),
	}
}

// Credit is a person's credit with its movie.
type Credit struct {
	Movie
	Kind       string           `db:"kind"`
	Role       string           `db:"role"`
	Department sql.Null[string] `db:"department"`
}

// Credit maps the row to its domain value.
func (r Credit) Credit() (movie.Credit, error) {
	m, err := r.Movie.Movie()
	return movie.Credit{Movie: m, Cast: r.Kind == "cast", Role: r.Role, Department: Ptr(r.Department)}, err
}

// Viewing is a review on a movie page with its author's name.
type Viewing struct {
	Review
	UserDisplay string `db:"user_display"`
}

// Viewing maps the row to its domain value.
func (r Viewing) Viewing() (movie.Viewing, error) {
	rv, err := r.Review.Review()
	return movie.Viewing{UserDisplay: r.UserDisplay, Review: rv}, err
}
