// Package tmdb talks to The Movie Database's API. This file is the lookup the server's movie
// resolution uses: one movie's title, year, director and details by external id.
package tmdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"moviesdiary/internal/domain"
)

// Client calls the TMDb API at a base URL with an API key.
type Client struct {
	base string
	key  string
	http *http.Client
}

// New returns a client; a nil hc gets a client with a 10 s timeout.
func New(baseURL, apiKey string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, http: hc}
}

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

func (c *Client) get(ctx context.Context, path string, q url.Values, v any) error {
	q.Set("api_key", c.key)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("tmdb: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		// *url.Error quotes the URL, and the URL carries the API key: keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("tmdb %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("tmdb %s: status %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("tmdb %s: decode: %w", path, err)
	}
	return nil
}
