package httpapi

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
)

type searchMovieDTO struct {
	MovieID     uuid.UUID `json:"movie_id"`
	Title       string    `json:"title"`
	ReleaseYear *int      `json:"release_year,omitempty"`
	Director    *string   `json:"director,omitempty"`
	PosterPath  *string   `json:"poster_path,omitempty"`
	Genres      []string  `json:"genres"`
}

type searchPersonDTO struct {
	PersonID           uuid.UUID `json:"person_id"`
	Name               string    `json:"name"`
	KnownForDepartment *string   `json:"known_for_department,omitempty"`
	ProfilePath        *string   `json:"profile_path,omitempty"`
	KnownForTitles     []string  `json:"known_for_titles"`
}

type searchResponse struct {
	Movies paginated[searchMovieDTO]  `json:"movies"`
	People paginated[searchPersonDTO] `json:"people"`
}

// search serves GET /api/v1/search over the local index.
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	p, err := page(r, 5)
	if err != nil {
		return err
	}
	qs := r.URL.Query()
	q := search.Query{Text: qs.Get("q"), Genre: qs.Get("genre"), Language: qs.Get("language"),
		Department: qs.Get("department"), Page: p}
	if raw := qs.Get("year"); raw != "" {
		y, err := strconv.Atoi(raw)
		if err != nil || y < 0 || y > domain.MaxReleaseYear {
			return badRequest("invalid year " + strconv.Quote(raw) + ": want 0-65535")
		}
		q.Year = &y
	}
	if q.PersonID, err = queryUUID(r, "person_id"); err != nil {
		return err
	}
	res, err := s.Search.Search(r.Context(), q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, searchResponse{
		Movies: toPaginated(res.Movies, func(m search.MovieHit) searchMovieDTO {
			out := searchMovieDTO{MovieID: m.ID, Title: m.Title, Director: m.Director, PosterPath: m.PosterPath, Genres: m.Genres}
			if m.ReleaseYear != 0 {
				out.ReleaseYear = &m.ReleaseYear
			}
			return out
		}),
		People: toPaginated(res.People, func(h search.PersonHit) searchPersonDTO {
			return searchPersonDTO{PersonID: h.ID, Name: h.Name, KnownForDepartment: h.KnownForDepartment,
				ProfilePath: h.ProfilePath, KnownForTitles: h.KnownForTitles}
		}),
	})
	return nil
}

// reindexSearch serves POST /api/v1/admin/reindex-search: the rebuild is queued for the worker.
func (s *Server) reindexSearch(w http.ResponseWriter, r *http.Request) error {
	if err := s.Search.RequestReindex(r.Context(), currentUser(r)); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, acceptedResponse{Status: "queued"})
	return nil
}
