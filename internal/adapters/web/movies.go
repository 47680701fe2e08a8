package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/watchlist"
)

// movieProfile is the part of the enriched profile document (GET /api/v1/movies/{id}/profile)
// the movie page shows. The document's backdrop_path and profile_path are TMDb's paths (what
// the API returns); the page shows the images the worker stored, Backdrop and each Photo.
type movieProfile struct {
	Backdrop    *string  `json:"-"` // the stored backdrop's key, nil until the worker stored it
	Tagline     *string  `json:"tagline"`
	VoteAverage *float64 `json:"vote_average"`
	Cast        []struct {
		PersonID  uuid.UUID `json:"person_id"`
		Name      string    `json:"name"`
		Character string    `json:"character"`
		Photo     *string   `json:"-"` // the stored photo's key, nil until the worker stored it
	} `json:"cast"`
	Crew []struct {
		PersonID uuid.UUID `json:"person_id"`
		Name     string    `json:"name"`
		Job      string    `json:"job"`
	} `json:"crew"`
}

// movieReviews is the reviews on one page of a movie.
const movieReviews = 20

type moviePage struct {
	Details     movie.Details
	Profile     *movieProfile
	History     review.History
	Mine        []domain.Review
	OnWatchlist bool
	Pager       pager
}

func (s *Server) movie(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := pageOf(r, movieReviews)
	d := moviePage{}
	if d.Details, err = s.Movies.Details(ctx, id, p); err != nil {
		return err
	}
	if d.Details.Movie.ID != id {
		// The id of a movie merged into another: its page is that one's now.
		target := "/movie/" + d.Details.Movie.ID.String()
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return nil
	}
	d.Pager = newPager(r, p, d.Details.Reviews.Total)
	if doc, err := s.Movies.Profile(ctx, id); err == nil {
		var mp movieProfile
		if json.Unmarshal(doc, &mp) == nil {
			if err := s.storedImages(r, id, &mp); err != nil {
				return err
			}
			d.Profile = &mp
		}
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	if d.History, err = s.Reviews.MovieHistory(ctx, id); err != nil {
		return err
	}
	if v.signedIn() {
		for _, rv := range d.History.Viewings {
			if rv.UserID == v.me.ID {
				d.Mine = append(d.Mine, rv)
			}
		}
		if d.OnWatchlist, err = s.Watchlist.Contains(ctx, v.me.ID, id); err != nil {
			return err
		}
	}
	return s.render(w, r, v, http.StatusOK, "movie", d.Details.Movie.Title, d)
}

// storedImages fills in the keys of the movie's backdrop and its cast's photos the worker stored.
func (s *Server) storedImages(r *http.Request, id uuid.UUID, mp *movieProfile) error {
	imgs, err := s.Movies.Images(r.Context(), id)
	if err != nil {
		return err
	}
	mp.Backdrop = imgs.BackdropKey
	photos := make(map[uuid.UUID]*string, len(imgs.Cast))
	for _, c := range imgs.Cast {
		photos[c.PersonID] = c.PhotoKey
	}
	for i := range mp.Cast {
		mp.Cast[i].Photo = photos[mp.Cast[i].PersonID]
	}
	return nil
}

type personPage struct {
	Person     movie.Person
	Cast, Crew []movie.Credit
}

func (s *Server) person(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, credits, err := s.Movies.Credits(r.Context(), id)
	if err != nil {
		return err
	}
	d := personPage{Person: p}
	for _, c := range credits {
		if c.Cast {
			d.Cast = append(d.Cast, c)
		} else {
			d.Crew = append(d.Crew, c)
		}
	}
	return s.render(w, r, v, http.StatusOK, "person", p.Name, d)
}

// searchSize is the hits of each kind on one page of results.
const searchSize = 20

type searchPage struct {
	Layout  layout
	Query   string
	Results search.Results
	Err     string
	Pager   pager
}

func (d searchPage) errorText() string { return d.Err }

func (s *Server) search(w http.ResponseWriter, r *http.Request, v visit) error {
	d := searchPage{Query: strings.TrimSpace(r.URL.Query().Get("q")), Layout: layoutOf(r)}
	if d.Query != "" {
		p := pageOf(r, searchSize)
		res, err := s.Search.Search(r.Context(), search.Query{Text: d.Query, Page: p})
		switch {
		case err != nil && statusOf(err) >= 500:
			return err
		case err != nil:
			d.Err = messageOf(err)
		default:
			d.Results = res
			d.Pager = newPager(r, p, max(res.Movies.Total, res.People.Total))
		}
	}
	return s.render(w, r, v, http.StatusOK, "search", "Search", d)
}

// watchlistSize is the entries on one page of the watchlist.
const watchlistSize = 50

type watchlistPage struct {
	formState
	Layout  layout
	Entries []watchlistEntry
	Pager   pager
}

type watchlistEntry struct {
	Movie   domain.Movie
	AddedAt string
}

func (s *Server) watchlist(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderWatchlist(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderWatchlist(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	p := pageOf(r, watchlistSize)
	l, err := s.Watchlist.List(r.Context(), v.me.ID, p)
	if err != nil {
		return err
	}
	d := watchlistPage{formState: f, Pager: newPager(r, p, l.Total), Layout: layoutOf(r)}
	for _, e := range l.Items {
		d.Entries = append(d.Entries, watchlistEntry{Movie: e.Movie, AddedAt: e.AddedAt.UTC().Format("2 Jan 2006")})
	}
	return s.render(w, r, v, status, "watchlist", "Watchlist", d)
}

// watchlistAdd adds a movie of the catalogue (movie_id) or one named by title and year.
func (s *Server) watchlistAdd(w http.ResponseWriter, r *http.Request, v visit) error {
	c := watchlist.AddCommand{UserID: v.me.ID}
	id, err := optionalUUID(r.PostFormValue("movie_id"))
	if err == nil && id == nil {
		c.Movie, err = s.movieRequest(r)
	}
	c.MovieID = id
	if err == nil {
		_, err = s.Watchlist.Add(r.Context(), c)
	}
	if err != nil {
		if statusOf(err) >= 500 {
			return err
		}
		return s.renderWatchlist(w, r, v, statusOf(err), formState{Err: messageOf(err),
			Values: formValues(r, "title", "year", "director")})
	}
	return redirect(w, r, backTo(r, "/watchlist")+"done=added")
}

func (s *Server) watchlistRemove(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := optionalUUID(r.PostFormValue("movie_id"))
	if err != nil || id == nil {
		return domain.Invalid("Which movie?")
	}
	if err := s.Watchlist.Remove(r.Context(), v.me.ID, *id); err != nil {
		return err
	}
	// Always to the watchlist: a movie nobody reviewed leaves the catalogue with its last
	// watchlist entry, so its page may be gone.
	return redirect(w, r, "/watchlist?done=removed")
}

// backTo is the form's "back" field when it is a local path, else fallback, ready for a query
// parameter to be appended.
func backTo(r *http.Request, fallback string) string {
	b := r.PostFormValue("back")
	if b == "" || localPath(b) != b {
		b = fallback
	}
	if strings.Contains(b, "?") {
		return b + "&"
	}
	return b + "?"
}
