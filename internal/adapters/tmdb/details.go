package tmdb

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
)

// Named is a genre or a keyword.
type Named struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// CastMember is one acting credit of a movie.
type CastMember struct {
	ID                 int64  `json:"id"`
	Name               string `json:"name"`
	Character          string `json:"character"`
	Order              int    `json:"order"`
	ProfilePath        string `json:"profile_path"`
	KnownForDepartment string `json:"known_for_department"`
}

// CrewMember is one crew credit of a movie.
type CrewMember struct {
	ID                 int64  `json:"id"`
	Name               string `json:"name"`
	Job                string `json:"job"`
	Department         string `json:"department"`
	ProfilePath        string `json:"profile_path"`
	KnownForDepartment string `json:"known_for_department"`
}

// Movie is /movie/{id}?append_to_response=credits,keywords.
type Movie struct {
	ID               int64   `json:"id"`
	IMDbID           string  `json:"imdb_id"`
	Title            string  `json:"title"`
	Tagline          string  `json:"tagline"`
	Overview         string  `json:"overview"`
	ReleaseDate      string  `json:"release_date"`
	Runtime          *int    `json:"runtime"`
	Budget           int64   `json:"budget"`
	Revenue          int64   `json:"revenue"`
	VoteAverage      float64 `json:"vote_average"`
	VoteCount        int64   `json:"vote_count"`
	OriginalLanguage string  `json:"original_language"`
	PosterPath       string  `json:"poster_path"`
	BackdropPath     string  `json:"backdrop_path"`
	Genres           []Named `json:"genres"`
	Collection       *Named  `json:"belongs_to_collection"`
	Credits          struct {
		Cast []CastMember `json:"cast"`
		Crew []CrewMember `json:"crew"`
	} `json:"credits"`
	Keywords struct {
		Keywords []Named `json:"keywords"`
	} `json:"keywords"`
}

// Year is the release year, 0 when unknown.
func (m Movie) Year() int {
	if len(m.ReleaseDate) < 4 {
		return 0
	}
	y, _ := strconv.Atoi(m.ReleaseDate[:4])
	return y
}

// Person is /person/{id}.
type Person struct {
	ID                 int64    `json:"id"`
	Name               string   `json:"name"`
	Biography          string   `json:"biography"`
	Birthday           *string  `json:"birthday"`
	Deathday           *string  `json:"deathday"`
	PlaceOfBirth       *string  `json:"place_of_birth"`
	AlsoKnownAs        []string `json:"also_known_as"`
	Homepage           *string  `json:"homepage"`
	IMDbID             *string  `json:"imdb_id"`
	KnownForDepartment string   `json:"known_for_department"`
	ProfilePath        *string  `json:"profile_path"`
}

// FoundMovie is a /find hit.
type FoundMovie struct {
	ID         int64  `json:"id"`
	Title      string `json:"title"`
	PosterPath string `json:"poster_path"`
}

// MovieID returns the TMDb id of an external id: "tmdb:N" is N, an IMDb "tt…" id is looked up
// with /find. An id TMDb does not know is a permanent error matching domain.ErrNotFound.
func (c *Client) MovieID(ctx context.Context, externalID string) (int64, error) {
	if n, ok := strings.CutPrefix(externalID, "tmdb:"); ok {
		id, err := strconv.ParseInt(n, 10, 64)
		if err != nil || id <= 0 {
			return 0, domain.Permanent(domain.Invalid("tmdb: %q is not tmdb:N", externalID))
		}
		return id, nil
	}
	if !strings.HasPrefix(externalID, "tt") {
		return 0, domain.Permanent(domain.Invalid("tmdb: %q is neither an IMDb id nor tmdb:N", externalID))
	}
	var found struct {
		MovieResults []FoundMovie `json:"movie_results"`
	}
	if err := c.get(ctx, "/find/"+url.PathEscape(externalID), url.Values{"external_source": {"imdb_id"}}, &found); err != nil {
		return 0, err
	}
	if len(found.MovieResults) == 0 || found.MovieResults[0].ID <= 0 {
		return 0, domain.Permanent(domain.NotFound("tmdb: no movie for %s", externalID))
	}
	return found.MovieResults[0].ID, nil
}

// Movie returns a movie with its credits and keywords.
func (c *Client) Movie(ctx context.Context, id int64) (Movie, error) {
	var m Movie
	err := c.get(ctx, "/movie/"+strconv.FormatInt(id, 10), url.Values{"append_to_response": {"credits,keywords"}}, &m)
	if err != nil {
		return Movie{}, err
	}
	if m.ID != id || m.Title == "" {
		return Movie{}, fmt.Errorf("tmdb /movie/%d: answer is not that movie (id %d, title %q)", id, m.ID, m.Title)
	}
	return m, nil
}

// Person returns a person's profile.
func (c *Client) Person(ctx context.Context, id int64) (Person, error) {
	var p Person
	if err := c.get(ctx, "/person/"+strconv.FormatInt(id, 10), url.Values{}, &p); err != nil {
		return Person{}, err
	}
	if p.ID != id || p.Name == "" {
		return Person{}, fmt.Errorf("tmdb /person/%d: answer is not that person (id %d, name %q)", id, p.ID, p.Name)
	}
	return p, nil
}

// imagePath is what TMDb's file paths look like ("/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg").
var imagePath = regexp.MustCompile(`^/[A-Za-z0-9_-]{1,100}\.(jpg|jpeg|png|webp)$`)

// ValidImagePath reports whether p is a TMDb image file path.
func ValidImagePath(p string) bool { return imagePath.MatchString(p) }

// Image downloads the image at a TMDb file path in a size ("w500", "w185", "original"). A body
// over the size limit or one that is not a JPEG, PNG or WebP image is a permanent error.
func (c *Client) Image(ctx context.Context, size, path string) ([]byte, error) {
	if !ValidImagePath(path) {
		return nil, domain.Permanent(fmt.Errorf("tmdb: %q is not an image path", path))
	}
	name := "image " + size + path
	body, _, err := c.fetch(ctx, c.cfg.ImageURL+"/"+url.PathEscape(size)+path, name, c.cfg.ImageTimeout, c.cfg.MaxImageBytes, "image/*")
	if err != nil {
		return nil, err
	}
	// The declared Content-Type is not trusted: the bytes are.
	switch ct := http.DetectContentType(body); ct {
	case "image/jpeg", "image/png", "image/webp":
		return body, nil
	default:
		return nil, domain.Permanent(fmt.Errorf("tmdb %s: body is %s, not an image", name, ct))
	}
}

// PosterPath returns the file path of a movie's poster ("" when TMDb has none): from /find for
// an IMDb id, from /movie/{id} for "tmdb:N".
func (c *Client) PosterPath(ctx context.Context, externalID string) (string, error) {
	if n, ok := strings.CutPrefix(externalID, "tmdb:"); ok {
		id, err := strconv.ParseInt(n, 10, 64)
		if err != nil || id <= 0 {
			return "", domain.Permanent(domain.Invalid("tmdb: %q is not tmdb:N", externalID))
		}
		var m struct {
			PosterPath string `json:"poster_path"`
		}
		if err := c.get(ctx, "/movie/"+strconv.FormatInt(id, 10), url.Values{}, &m); err != nil {
			return "", err
		}
		return m.PosterPath, nil
	}
	if !strings.HasPrefix(externalID, "tt") {
		return "", domain.Permanent(domain.Invalid("tmdb: %q is neither an IMDb id nor tmdb:N", externalID))
	}
	var found struct {
		MovieResults []FoundMovie `json:"movie_results"`
	}
	if err := c.get(ctx, "/find/"+url.PathEscape(externalID), url.Values{"external_source": {"imdb_id"}}, &found); err != nil {
		return "", err
	}
	if len(found.MovieResults) == 0 {
		return "", domain.Permanent(domain.NotFound("tmdb: no movie for %s", externalID))
	}
	return found.MovieResults[0].PosterPath, nil
}
