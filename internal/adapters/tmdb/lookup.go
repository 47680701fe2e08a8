// Package tmdb talks to The Movie Database's API. This file is the lookup the server's movie
// resolution uses: one movie's title, year, director and details by external id.
package tmdb

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

type movieDetails struct {
	ID               int    `json:"id"`
	Title            string `json:"title"`
	ReleaseDate      string `json:"release_date"`
	Runtime          *int   `json:"runtime"`
	Overview         string `json:"overview"`
	OriginalLanguage string `json:"original_language"`
	Genres           []struct {
		Name string `json:"name"`
	} `json:"genres"`
	Collection *struct {
		Name string `json:"name"`
	} `json:"belongs_to_collection"`
	Credits struct {
		Crew []struct {
			Job  string `json:"job"`
			Name string `json:"name"`
		} `json:"crew"`
	} `json:"credits"`
}

// LookupMovie returns the movie with an IMDb id ("tt…", through /find) or a TMDb id ("tmdb:N").
func (c *Client) LookupMovie(ctx context.Context, externalID string) (domain.Movie, error) {
	tmdbID, ok := strings.CutPrefix(externalID, "tmdb:")
	if !ok {
		var found struct {
			MovieResults []struct {
				ID int `json:"id"`
			} `json:"movie_results"`
		}
		if err := c.get(ctx, "/find/"+url.PathEscape(externalID), url.Values{"external_source": {"imdb_id"}}, &found); err != nil {
			return domain.Movie{}, err
		}
		if len(found.MovieResults) == 0 {
			return domain.Movie{}, domain.NotFound("no TMDb movie for %s", externalID)
		}
		tmdbID = strconv.Itoa(found.MovieResults[0].ID)
	}
	var d movieDetails
	if err := c.get(ctx, "/movie/"+url.PathEscape(tmdbID), url.Values{"append_to_response": {"credits"}}, &d); err != nil {
		return domain.Movie{}, err
	}
	m := domain.Movie{Title: d.Title, RuntimeMinutes: d.Runtime, Genres: []string{}}
	if len(d.ReleaseDate) >= 4 {
		m.ReleaseYear, _ = strconv.Atoi(d.ReleaseDate[:4])
	}
	for _, g := range d.Genres {
		m.Genres = append(m.Genres, g.Name)
	}
	for _, p := range d.Credits.Crew {
		if p.Job == "Director" {
			name := p.Name
			m.Director = &name
			break
		}
	}
	if d.Overview != "" {
		m.Overview = &d.Overview
	}
	if d.OriginalLanguage != "" {
		m.OriginalLanguage = &d.OriginalLanguage
	}
	if d.Collection != nil && d.Collection.Name != "" {
		m.CollectionName = &d.Collection.Name
	}
	return m, nil
}

// SearchMovies is the title search of movie resolution: the first page of /search/movie, with
// primary_release_year when a year is given (the year the film came out, not a re-release).
func (c *Client) SearchMovies(ctx context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
	page, err := c.Search(ctx, SearchQuery{Query: q.Title, PrimaryReleaseYear: q.Year, Language: q.Language})
	if err != nil {
		return nil, err
	}
	out := make([]movie.Candidate, 0, len(page.Results))
	for _, r := range page.Results {
		out = append(out, candidate(r))
	}
	return out, nil
}

// FindIMDb returns TMDb's movie with an IMDb id (/find); domain.ErrNotFound when there is none.
func (c *Client) FindIMDb(ctx context.Context, imdbID string) (movie.Candidate, error) {
	rs, err := c.Find(ctx, imdbID)
	if err != nil {
		return movie.Candidate{}, err
	}
	if len(rs) == 0 {
		return movie.Candidate{}, domain.Permanent(domain.NotFound("tmdb: no movie for %s", imdbID))
	}
	return candidate(rs[0]), nil
}

func candidate(r SearchResult) movie.Candidate {
	return movie.Candidate{TMDbID: r.ID, Title: r.Title, OriginalTitle: r.OriginalTitle, Year: r.Year(), PosterPath: r.PosterPath}
}
