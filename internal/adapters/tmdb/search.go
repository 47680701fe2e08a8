package tmdb

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
)

// SearchQuery is GET /search/movie's parameters.
type SearchQuery struct {
	Query string
	// Year narrows to films with any release (theatrical, digital…) that year, and
	// PrimaryReleaseYear to films first released that year; zero omits them.
	Year               int
	PrimaryReleaseYear int
	Language           string // Language is an ISO 639-1 code, optionally with a region ("en-US"); "" omits it.
	Page               int    // Page is 1-based; zero is the first page.
}

// SearchResult is one film of a search or a /find answer.
type SearchResult struct {
	ID               int64   `json:"id"`
	Title            string  `json:"title"`
	OriginalTitle    string  `json:"original_title"`
	OriginalLanguage string  `json:"original_language"`
	ReleaseDate      string  `json:"release_date"`
	PosterPath       string  `json:"poster_path"`
	Popularity       float64 `json:"popularity"`
	VoteCount        int64   `json:"vote_count"`
}

// Year is the release year, 0 when the date is missing or not a date.
func (r SearchResult) Year() int {
	if len(r.ReleaseDate) < 4 {
		return 0
	}
	y, err := strconv.Atoi(r.ReleaseDate[:4])
	if err != nil || y < domain.MinReleaseYear {
		return 0
	}
	return y
}

// SearchPage is one page of GET /search/movie.
type SearchPage struct {
	Page         int            `json:"page"`
	Results      []SearchResult `json:"results"`
	TotalPages   int            `json:"total_pages"`
	TotalResults int            `json:"total_results"`
}

// Search runs GET /search/movie. Results without an id or a title (TMDb never sends them;
// a broken proxy might) are dropped, so a caller sees only films it could name. A 200 whose body
// is not a search page (no "results" array) is a transient error, like undecodable JSON.
func (c *Client) Search(ctx context.Context, q SearchQuery) (SearchPage, error) {
	query := strings.TrimSpace(q.Query)
	if query == "" {
		return SearchPage{}, domain.Permanent(domain.Invalid("tmdb: a search needs a query"))
	}
	v := url.Values{"query": {query}, "include_adult": {"false"}}
	if q.Year > 0 {
		v.Set("year", strconv.Itoa(q.Year))
	}
	if q.PrimaryReleaseYear > 0 {
		v.Set("primary_release_year", strconv.Itoa(q.PrimaryReleaseYear))
	}
	if q.Language != "" {
		v.Set("language", q.Language)
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	var raw struct {
		SearchPage
		Results *[]SearchResult `json:"results"`
	}
	if err := c.get(ctx, "/search/movie", v, &raw); err != nil {
		return SearchPage{}, err
	}
	if raw.Results == nil {
		return SearchPage{}, fmt.Errorf("tmdb /search/movie: answer is not a search page (no results)")
	}
	page := raw.SearchPage
	page.Results = usable(*raw.Results, true)
	return page, nil
}

// Find runs GET /find/{imdb_id}?external_source=imdb_id and returns its movie results
// (usually one; none when TMDb does not know the id). A 200 without "movie_results" is a
// transient error.
func (c *Client) Find(ctx context.Context, imdbID string) ([]SearchResult, error) {
	if ext, err := domain.NormalizeExternalID(imdbID); err != nil || !strings.HasPrefix(ext, "tt") {
		return nil, domain.Permanent(domain.Invalid("tmdb: %q is not an IMDb id", imdbID))
	}
	var found struct {
		MovieResults *[]SearchResult `json:"movie_results"`
	}
	path := "/find/" + url.PathEscape(strings.TrimSpace(imdbID))
	if err := c.get(ctx, path, url.Values{"external_source": {"imdb_id"}}, &found); err != nil {
		return nil, err
	}
	if found.MovieResults == nil {
		return nil, fmt.Errorf("tmdb /find: answer is not a find result (no movie_results)")
	}
	return usable(*found.MovieResults, false), nil
}

// usable keeps the results that name a film: a positive id (and a title, when needTitle: a
// search result is matched on it; a /find result is followed by its id), each id once.
func usable(rs []SearchResult, needTitle bool) []SearchResult {
	out := make([]SearchResult, 0, len(rs))
	seen := make(map[int64]bool, len(rs))
	for _, r := range rs {
		r.Title = strings.TrimSpace(r.Title)
		if r.ID <= 0 || needTitle && r.Title == "" || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	return out
}
