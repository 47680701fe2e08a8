package web

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/search"
)

// The log form's search: GET /log/search lists the films a title (and year) names, this
// instance's first, then the provider's (TMDb) when one is configured, each with its poster and
// year and a form that picks it; POST /log/pick takes the pick to the log form, filled in. A
// film nobody lists is entered by hand: the results link to the form with the title and year
// typed so far. All of it works without JavaScript.

// findSize bounds the local hits the results list.
const findSize = 12

// choice is one film a person may pick.
type choice struct {
	// Value is what the pick form posts: a movie id, or "tmdb:N" for a film not stored here.
	Value       string
	Title       string
	Year        int
	Director    string
	Poster      string // Poster and Srcset are the card's image, "" for the placeholder.
	Srcset      string
	ProviderArt string // ProviderArt is the provider's poster file path, posted with a "tmdb:N" pick.
	Link        string // Link is the film's page here, when it is stored.
}

type logSearchPage struct {
	Err         string
	Title, Year string
	Local       []choice
	Remote      []choice
	// Provider says whether the provider was searched; Note why its films are missing.
	Provider  bool
	Note      string
	ManualURL string
}

func (d logSearchPage) errorText() string { return d.Err }

// providerNote is shown when the provider fails: the page still lists what it has.
const providerNote = "TMDb did not answer, so only this instance's films are listed. If yours is not among them, enter it by hand."

func (s *Server) logSearch(w http.ResponseWriter, r *http.Request, v visit) error {
	q := r.URL.Query()
	d := logSearchPage{Title: strings.TrimSpace(q.Get("title")), Year: strings.TrimSpace(q.Get("year"))}
	manual := url.Values{}
	if d.Title != "" {
		manual.Set("title", d.Title)
	}
	if d.Year != "" {
		manual.Set("year", d.Year)
	}
	d.ManualURL = "/log"
	if len(manual) > 0 {
		d.ManualURL += "?" + manual.Encode()
	}
	year := 0
	if d.Year != "" {
		n, err := strconv.Atoi(d.Year)
		if err != nil || n < domain.MinReleaseYear || n > 2100 {
			d.Err = "The year must be a number such as 2016."
			return s.render(w, r, v, http.StatusOK, "logsearch", "Find the movie", d)
		}
		year = n
	}
	if d.Title == "" {
		d.Err = "Type a title to search for."
		return s.render(w, r, v, http.StatusOK, "logsearch", "Find the movie", d)
	}
	ctx := r.Context()
	sq := search.Query{Text: d.Title, Page: domain.Page{Limit: findSize}}
	if year != 0 {
		sq.Year = &year
	}
	local := map[uuid.UUID]bool{}
	res, err := s.Search.Search(ctx, sq)
	switch {
	case err != nil && statusOf(err) >= 500:
		return err
	case err != nil:
		d.Err = messageOf(err)
	}
	for _, h := range res.Movies.Items {
		local[h.ID] = true
		d.Local = append(d.Local, storedChoice(h.ID, h.Title, h.ReleaseYear, h.Director, h.PosterPath))
	}
	if s.Finder.Enabled() {
		d.Provider = true
		found, err := s.Finder.Find(ctx, movie.TitleQuery{Title: d.Title, Year: year})
		switch {
		case errors.Is(err, domain.ErrInvalid):
			d.Err = messageOf(err)
		case err != nil:
			s.log.WarnContext(ctx, "log form: provider search failed; listing local films only", "title", d.Title, "error", err)
			d.Note = providerNote
		}
		for _, f := range found {
			d.Remote = append(d.Remote, s.foundChoice(f, local))
		}
		d.Remote = compact(d.Remote)
	}
	return s.render(w, r, v, http.StatusOK, "logsearch", "Find the movie", d)
}

// compact drops the zero choices foundChoice makes of films the local list has already.
func compact(cs []choice) []choice {
	out := cs[:0]
	for _, c := range cs {
		if c.Value != "" {
			out = append(out, c)
		}
	}
	return out
}

func storedChoice(id uuid.UUID, title string, year int, director, poster *string) choice {
	c := choice{Value: id.String(), Title: title, Year: year, Director: derefString(director),
		Poster: thumbURL(poster, 185), Srcset: posterSrcset(poster), Link: "/movie/" + id.String()}
	return c
}

// foundChoice is a provider's film as a choice: the stored movie when there is one (the zero
// choice when the local list shows it already), else the film by its external id with the
// provider's poster.
func (s *Server) foundChoice(f movie.Found, local map[uuid.UUID]bool) choice {
	if m := f.Stored; m != nil {
		if local[m.ID] {
			return choice{}
		}
		local[m.ID] = true
		c := storedChoice(m.ID, m.Title, m.ReleaseYear, m.Director, m.PosterPath)
		if c.Poster == "" {
			c.Poster, c.Srcset = s.providerPoster(f.PosterPath)
		}
		return c
	}
	c := choice{Value: f.ExternalID(), Title: f.Title, Year: f.Year}
	if len(f.Directors) > 0 {
		c.Director = f.Directors[0]
	}
	if providerPath.MatchString(f.PosterPath) {
		c.ProviderArt = f.PosterPath
	}
	c.Poster, c.Srcset = s.providerPoster(f.PosterPath)
	return c
}

// providerPath is the shape of a provider (TMDb) image file path: "/" and a file name.
var providerPath = regexp.MustCompile(`^/[A-Za-z0-9_-]{1,100}\.(jpg|jpeg|png|webp)$`)

// providerPoster is a provider file path's poster in the CDN's w185, with the w342 for dense
// screens; "" when there is no CDN or the path is not one.
func (s *Server) providerPoster(path string) (src, srcset string) {
	if s.ProviderImageURL == "" || !providerPath.MatchString(path) {
		return "", ""
	}
	src = s.ProviderImageURL + "/w185" + path
	return src, src + " 185w, " + s.ProviderImageURL + "/w342" + path + " 342w"
}

// pickFilm takes the film picked from the results to the log form: a movie of the catalogue by
// id, or a provider's film by "tmdb:N" with the title, year and poster the results showed (the
// form posts them as the manual fallback: if the provider cannot be reached when the review is
// logged, the movie is stored by them and resolved later).
func (s *Server) pickFilm(w http.ResponseWriter, r *http.Request, v visit) error {
	value := strings.TrimSpace(r.PostFormValue("movie"))
	if id, err := uuid.Parse(value); err == nil {
		return redirect(w, r, "/log?movie="+id.String())
	}
	p, err := pickedFrom(value, r.PostFormValue("title"), r.PostFormValue("year"), r.PostFormValue("poster"))
	if err != nil {
		return err
	}
	q := url.Values{"movie": {p.Ext}, "title": {p.Title}}
	if p.Year != 0 {
		q.Set("year", strconv.Itoa(p.Year))
	}
	if p.Art != "" {
		q.Set("poster", p.Art)
	}
	return redirect(w, r, "/log?"+q.Encode())
}

// picked is a provider's film chosen on the results, not stored yet.
type picked struct {
	Ext, Title string
	Year       int
	Art        string // Art is the provider's poster file path, "" for none.
	Poster     string
	Srcset     string
}

// maxTitle bounds a picked title; the resolver checks the real bound.
const maxTitle = 500

// pickedFrom validates a provider pick: "tmdb:N", a title, a year (optional: the provider may
// have no date) and a poster path (dropped unless it is one).
func pickedFrom(ext, title, year, poster string) (picked, error) {
	ext, err := domain.NormalizeExternalID(ext)
	if err != nil || !strings.HasPrefix(ext, "tmdb:") {
		return picked{}, domain.Invalid("Pick a movie from the list.")
	}
	p := picked{Ext: ext, Title: strings.TrimSpace(title)}
	if p.Title == "" || len(p.Title) > maxTitle {
		return picked{}, domain.Invalid("The picked movie has no title.")
	}
	if y := strings.TrimSpace(year); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < domain.MinReleaseYear || n > 2100 {
			return picked{}, domain.Invalid("The year must be a number such as 2016.")
		}
		p.Year = n
	}
	if providerPath.MatchString(poster) {
		p.Art = poster
	}
	return p, nil
}

// pickCard is a choice with the CSRF token its pick form posts.
type pickCard struct {
	CSRF string
	C    choice
}

func pickOf(csrf string, c choice) pickCard { return pickCard{CSRF: csrf, C: c} }

// PickedSearch is the search that found the picked film, for "Choose another".
func (d logPage) PickedSearch() string {
	q := url.Values{"title": {d.Picked.Title}}
	if d.Picked.Year != 0 {
		q.Set("year", strconv.Itoa(d.Picked.Year))
	}
	return "/log/search?" + q.Encode()
}
