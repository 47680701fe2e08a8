package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/movie"
)

func (s *Server) listMovies(w http.ResponseWriter, r *http.Request) error {
	p, err := page(r, 5)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	movies, err := s.Movies.List(r.Context(), movie.Filter{Search: q.Get("search"), Genre: q.Get("genre"), Language: q.Get("language")}, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toPaginated(movies, toMovie))
	return nil
}

type movieStatsDTO struct {
	TotalCount      int      `json:"total_count"`
	AvgRating       *float64 `json:"avg_rating"`
	FederatedCount  int      `json:"federated_count"`
	RatingHistogram [5]int   `json:"rating_histogram"`
}

type movieReviewDTO struct {
	UserDisplay string  `json:"user_display"`
	Rating      int     `json:"rating" openapi:"minimum=1,maximum=5"`
	Comment     *string `json:"comment"`
	WatchedAt   string  `json:"watched_at" openapi:"format=naive-date-time"`
	IsFederated bool    `json:"is_federated"`
	WatchMedium *string `json:"watch_medium,omitempty"`
}

type movieDetailsResponse struct {
	Movie   movieDTO                  `json:"movie"`
	Stats   movieStatsDTO             `json:"stats"`
	Reviews paginated[movieReviewDTO] `json:"reviews"`
}

func (s *Server) getMovie(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := page(r, 20)
	if err != nil {
		return err
	}
	d, err := s.Movies.Details(r.Context(), id, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, movieDetailsResponse{
		Movie: toMovie(d.Movie),
		Stats: movieStatsDTO{TotalCount: d.Stats.TotalCount, AvgRating: d.Stats.AvgRating,
			FederatedCount: d.Stats.FederatedCount, RatingHistogram: d.Stats.Histogram},
		Reviews: toPaginated(d.Reviews, func(v movie.Viewing) movieReviewDTO {
			out := movieReviewDTO{UserDisplay: v.UserDisplay, Rating: v.Review.Rating, Comment: v.Review.Comment,
				WatchedAt: naiveTime(v.Review.WatchedAt), IsFederated: v.Review.Federated()}
			if v.Review.WatchMedium != nil {
				m := string(*v.Review.WatchMedium)
				out.WatchMedium = &m
			}
			return out
		}),
	})
	return nil
}

func (s *Server) movieProfile(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	doc, err := s.Movies.Profile(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(doc)
	return err
}

// acceptedResponse is the body of a 202: the request is queued for the worker.
type acceptedResponse struct {
	Status string `json:"status"`
}

func (s *Server) syncPoster(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.Movies.SyncPoster(r.Context(), id); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, acceptedResponse{Status: "queued"})
	return nil
}

// personDTO is the original API's PersonDto.
type personDTO struct {
	ID                 uuid.UUID `json:"id"`
	ExternalID         string    `json:"external_id"`
	Name               string    `json:"name"`
	KnownForDepartment *string   `json:"known_for_department"`
	ProfilePath        *string   `json:"profile_path"`
	Biography          *string   `json:"biography,omitempty"`
	Birthday           *string   `json:"birthday,omitempty"`
	Deathday           *string   `json:"deathday,omitempty"`
	PlaceOfBirth       *string   `json:"place_of_birth,omitempty"`
	Homepage           *string   `json:"homepage,omitempty"`
	IMDbURL            *string   `json:"imdb_url,omitempty"`
	Enriched           bool      `json:"enriched"`
}

func toPerson(p movie.Person) personDTO {
	out := personDTO{
		ID: p.ID, ExternalID: p.ExternalID, Name: p.Name, KnownForDepartment: p.KnownForDepartment,
		ProfilePath: p.ProfilePath, Biography: p.Biography, Birthday: p.Birthday, Deathday: p.Deathday,
		PlaceOfBirth: p.PlaceOfBirth, Homepage: p.Homepage, Enriched: p.Enriched,
	}
	if p.IMDbID != nil {
		u := "https://www.imdb.com/name/" + *p.IMDbID
		out.IMDbURL = &u
	}
	return out
}

func (s *Server) getPerson(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := s.Movies.Person(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toPerson(p))
	return nil
}

type castCreditDTO struct {
	MovieID     uuid.UUID `json:"movie_id"`
	Title       string    `json:"title"`
	ReleaseYear *int      `json:"release_year,omitempty"`
	Character   string    `json:"character"`
	PosterPath  *string   `json:"poster_path,omitempty"`
}

type crewCreditDTO struct {
	MovieID     uuid.UUID `json:"movie_id"`
	Title       string    `json:"title"`
	ReleaseYear *int      `json:"release_year,omitempty"`
	Job         string    `json:"job"`
	Department  string    `json:"department"`
	PosterPath  *string   `json:"poster_path,omitempty"`
}

type creditsResponse struct {
	Person personDTO       `json:"person"`
	Cast   []castCreditDTO `json:"cast"`
	Crew   []crewCreditDTO `json:"crew"`
}

func (s *Server) personCredits(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, credits, err := s.Movies.Credits(r.Context(), id)
	if err != nil {
		return err
	}
	out := creditsResponse{Person: toPerson(p), Cast: []castCreditDTO{}, Crew: []crewCreditDTO{}}
	for _, c := range credits {
		var year *int
		if c.Movie.ReleaseYear != 0 {
			year = &c.Movie.ReleaseYear
		}
		if c.Cast {
			out.Cast = append(out.Cast, castCreditDTO{MovieID: c.Movie.ID, Title: c.Movie.Title, ReleaseYear: year,
				Character: c.Role, PosterPath: c.Movie.PosterPath})
			continue
		}
		dept := ""
		if c.Department != nil {
			dept = *c.Department
		}
		out.Crew = append(out.Crew, crewCreditDTO{MovieID: c.Movie.ID, Title: c.Movie.Title, ReleaseYear: year,
			Job: c.Role, Department: dept, PosterPath: c.Movie.PosterPath})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
