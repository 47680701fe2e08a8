package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
)

// feedSize and diarySize are the entries on one page of the feed and the diary.
const (
	feedSize  = 20
	diarySize = 20
)

// homePage is the instance feed or, on the following tab, the reviews of the people the viewer
// follows.
type homePage struct {
	Tab     string
	Entries []review.Entry
	Pager   pager
}

func (s *Server) home(w http.ResponseWriter, r *http.Request, v visit) error {
	d := homePage{Tab: "instance"}
	p := pageOf(r, feedSize)
	if v.signedIn() && r.URL.Query().Get("tab") == "following" {
		d.Tab = "following"
		feed, err := s.Reviews.Following(r.Context(), v.me.ID, p)
		if err != nil {
			return err
		}
		d.Entries, d.Pager = feed.Items, newPager(r, p, feed.Total)
		return s.render(w, r, v, http.StatusOK, "home", "Following", d)
	}
	feed, err := s.Reviews.Feed(r.Context(), review.SortDateDesc, p)
	if err != nil {
		return err
	}
	d.Entries, d.Pager = feed.Items, newPager(r, p, feed.Total)
	return s.render(w, r, v, http.StatusOK, "home", "Latest reviews", d)
}

// sorts are the diary's orders as the sort menu names them.
var sorts = []struct{ Key, Label string }{
	{"date_desc", "Newest first"}, {"date_asc", "Oldest first"},
	{"rating_desc", "Best rated"}, {"rating_asc", "Worst rated"},
}

func sortOf(key string) review.Sort {
	switch key {
	case "date_asc":
		return review.SortDateAsc
	case "rating_desc":
		return review.SortRatingDesc
	case "rating_asc":
		return review.SortRatingAsc
	}
	return review.SortDateDesc
}

type diaryPage struct {
	Layout  layout
	Owner   *domain.User
	Mine    bool
	Sort    string
	Sorts   any
	Entries []review.Entry
	Pager   pager
}

// diary is a user's diary (?user=, the viewer's own by default) or, for a visitor, every local
// review.
func (s *Server) diary(w http.ResponseWriter, r *http.Request, v visit) error {
	q := r.URL.Query()
	d := diaryPage{Sort: q.Get("sort"), Sorts: sorts, Layout: layoutOf(r)}
	if d.Sort == "" {
		d.Sort = "date_desc"
	}
	f := review.DiaryFilter{Sort: sortOf(d.Sort)}
	uid, err := optionalUUID(q.Get("user"))
	if err != nil {
		return err
	}
	if uid == nil && v.signedIn() {
		uid = &v.me.ID
	}
	if uid != nil {
		owner, err := s.Profiles.Get(r.Context(), *uid)
		if err != nil {
			return err
		}
		d.Owner, d.Mine, f.UserID = &owner, v.signedIn() && owner.ID == v.me.ID, uid
	}
	p := pageOf(r, diarySize)
	entries, err := s.Reviews.Diary(r.Context(), f, p)
	if err != nil {
		return err
	}
	d.Entries, d.Pager = entries.Items, newPager(r, p, entries.Total)
	title := "Diary"
	if d.Owner != nil && !d.Mine {
		title = "Diary of " + displayName(*d.Owner)
	}
	return s.render(w, r, v, http.StatusOK, "diary", title, d)
}

// logPage is the form that logs a review: the local index's hits for ?q=, or a movie chosen
// by ?movie=, or the manual title and year.
type logPage struct {
	formState
	Query  string
	Hits   []search.MovieHit
	Chosen *domain.Movie
	// Picked is a provider's film picked on the search results (find.go), not stored yet.
	Picked *picked
	Media  []domain.WatchMedium
	Today  string
}

var logFields = []string{"movie_id", "title", "year", "director", "rating", "comment", "watched_at", "medium", "poster"}

func (s *Server) logForm(w http.ResponseWriter, r *http.Request, v visit) error {
	q := r.URL.Query()
	d := logPage{Query: strings.TrimSpace(q.Get("q")), Media: media, Today: time.Now().UTC().Format("2006-01-02")}
	// title and year come from the results' "not listed" link, or with a pick.
	d.Values = map[string]string{"watched_at": d.Today, "title": q.Get("title"), "year": q.Get("year")}
	if m := q.Get("movie"); strings.HasPrefix(m, "tmdb:") {
		p, err := pickedFrom(m, q.Get("title"), q.Get("year"), q.Get("poster"))
		if err != nil {
			return err
		}
		d.pick(s, p)
		return s.render(w, r, v, http.StatusOK, "log", "Log a review", d)
	}
	if d.Query != "" {
		res, err := s.Search.Search(r.Context(), search.Query{Text: d.Query, Page: domain.Page{Limit: 10}})
		if err != nil && statusOf(err) >= 500 {
			return err
		} else if err != nil {
			d.Err = messageOf(err)
		}
		d.Hits = res.Movies.Items
	}
	if id, err := optionalUUID(r.URL.Query().Get("movie")); err != nil {
		return err
	} else if id != nil {
		m, err := s.movieByID(r, *id)
		if err != nil {
			return err
		}
		d.Chosen = &m
		d.Values["movie_id"] = m.ID.String()
	}
	return s.render(w, r, v, http.StatusOK, "log", "Log a review", d)
}

// pick fills the form with a provider's film: it posts the external id with the title and year
// as the manual fallback, and the poster path to show it again if the form is refused.
func (d *logPage) pick(s *Server, p picked) {
	p.Poster, p.Srcset = s.providerPoster(p.Art)
	d.Picked = &p
	d.Values["movie_id"], d.Values["title"], d.Values["poster"] = p.Ext, p.Title, p.Art
	d.Values["year"] = ""
	if p.Year != 0 {
		d.Values["year"] = strconv.Itoa(p.Year)
	}
}

// movieByID is a movie of the catalogue.
func (s *Server) movieByID(r *http.Request, id uuid.UUID) (domain.Movie, error) {
	d, err := s.Movies.Details(r.Context(), id, domain.Page{Limit: 1})
	return d.Movie, err
}

// movieRequest is the movie a form names: one of the catalogue by movie_id, or the typed title
// and year (and director).
func (s *Server) movieRequest(r *http.Request) (movie.Request, error) {
	if ext := strings.TrimSpace(r.PostFormValue("movie_id")); strings.HasPrefix(ext, "tmdb:") {
		// A provider's film picked on the search results: the title and year are the fallback
		// the resolver stores if the provider cannot be asked now.
		ext, err := domain.NormalizeExternalID(ext)
		if err != nil {
			return movie.Request{}, err
		}
		req, err := manualRequest(r)
		req.ExternalID = ext
		return req, err
	}
	id, err := optionalUUID(r.PostFormValue("movie_id"))
	if err != nil {
		return movie.Request{}, err
	}
	if id != nil {
		m, err := s.movieByID(r, *id)
		if err != nil {
			return movie.Request{}, err
		}
		req := movie.Request{ManualTitle: &m.Title, ManualYear: &m.ReleaseYear, ManualDirector: m.Director}
		if m.ExternalID != nil {
			req.ExternalID = *m.ExternalID
		}
		return req, nil
	}
	return manualRequest(r)
}

// manualRequest is the movie the form's title, year and director name.
func manualRequest(r *http.Request) (movie.Request, error) {
	title := r.PostFormValue("title")
	req := movie.Request{ManualTitle: &title}
	if y := strings.TrimSpace(r.PostFormValue("year")); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil {
			return req, domain.Invalid("The year must be a number.")
		}
		req.ManualYear = &n
	}
	if d := strings.TrimSpace(r.PostFormValue("director")); d != "" {
		req.ManualDirector = &d
	}
	return req, nil
}

// ratingOf reads the rating field; the use case checks its range.
func ratingOf(r *http.Request) (int, error) {
	n, err := strconv.Atoi(r.PostFormValue("rating"))
	if err != nil {
		return 0, domain.Invalid("Choose a rating.")
	}
	return n, nil
}

// mediumOf reads the medium field, nil for none.
func mediumOf(r *http.Request) *domain.WatchMedium {
	if m := r.PostFormValue("medium"); m != "" {
		wm := domain.WatchMedium(m)
		return &wm
	}
	return nil
}

func (s *Server) logReview(w http.ResponseWriter, r *http.Request, v visit) error {
	refuse := func(err error) error {
		if statusOf(err) >= 500 {
			return err
		}
		d := logPage{Media: media, formState: formState{Err: messageOf(err), Values: formValues(r, logFields...)}}
		if p, perr := pickedFrom(d.V("movie_id"), d.V("title"), d.V("year"), d.V("poster")); perr == nil {
			d.pick(s, p)
		}
		return s.render(w, r, v, statusOf(err), "log", "Log a review", d)
	}
	mr, err := s.movieRequest(r)
	if err != nil {
		return refuse(err)
	}
	rating, err := ratingOf(r)
	if err != nil {
		return refuse(err)
	}
	c := review.LogCommand{UserID: v.me.ID, Movie: mr, Rating: rating, WatchedAt: r.PostFormValue("watched_at"),
		WatchMedium: mediumOf(r)}
	if cm := r.PostFormValue("comment"); strings.TrimSpace(cm) != "" {
		c.Comment = &cm
	}
	logged, err := s.Reviews.Log(r.Context(), c)
	if err != nil {
		return refuse(err)
	}
	return redirect(w, r, "/movie/"+logged.Movie.ID.String()+"?done=logged")
}

// editPage is the form of one of the viewer's reviews.
type editPage struct {
	formState
	Movie  domain.Movie
	Review domain.Review
	Media  []domain.WatchMedium
}

// ownReview is the viewer's review {id} with its movie. Links of older pages also named the
// movie (?movie=, a movie_id field): it is ignored, so they keep working.
func (s *Server) ownReview(r *http.Request, v visit) (domain.Movie, domain.Review, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return domain.Movie{}, domain.Review{}, err
	}
	e, err := s.Reviews.Editable(r.Context(), v.me.ID, id)
	return e.Movie, e.Review, err
}

func (s *Server) editForm(w http.ResponseWriter, r *http.Request, v visit) error {
	m, rv, err := s.ownReview(r, v)
	if err != nil {
		return err
	}
	d := editPage{Movie: m, Review: rv, Media: media, formState: formState{Values: map[string]string{
		"rating": strconv.Itoa(rv.Rating), "comment": derefString(rv.Comment),
		"watched_at": rv.WatchedAt.UTC().Format("2006-01-02"), "medium": string(derefMedium(rv.WatchMedium)),
	}}}
	return s.render(w, r, v, http.StatusOK, "edit", "Edit review: "+m.Title, d)
}

func (s *Server) editReview(w http.ResponseWriter, r *http.Request, v visit) error {
	m, rv, err := s.ownReview(r, v)
	if err != nil {
		return err
	}
	refuse := func(err error) error {
		if statusOf(err) >= 500 {
			return err
		}
		d := editPage{Movie: m, Review: rv, Media: media,
			formState: formState{Err: messageOf(err), Values: formValues(r, logFields...)}}
		return s.render(w, r, v, statusOf(err), "edit", "Edit review: "+m.Title, d)
	}
	rating, err := ratingOf(r)
	if err != nil {
		return refuse(err)
	}
	watched := r.PostFormValue("watched_at")
	p := review.Patch{Rating: &rating, WatchedAt: &watched}
	if cm := r.PostFormValue("comment"); strings.TrimSpace(cm) != "" {
		p.Comment = &cm
	} else {
		p.ClearComment = true
	}
	if md := mediumOf(r); md != nil {
		p.WatchMedium = md
	} else {
		p.ClearWatchMedium = true
	}
	if _, err := s.Reviews.Edit(r.Context(), v.me.ID, rv.ID, p); err != nil {
		return refuse(err)
	}
	return redirect(w, r, "/movie/"+m.ID.String()+"?done=edited")
}

func (s *Server) deleteReview(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.Reviews.Delete(r.Context(), v.me.ID, id); err != nil {
		return err
	}
	return redirect(w, r, "/diary?done=deleted")
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefMedium(p *domain.WatchMedium) domain.WatchMedium {
	if p == nil {
		return ""
	}
	return *p
}

// displayName is how a user is named on a page: the display name, else the username.
func displayName(u domain.User) string {
	if u.Profile.DisplayName != "" {
		return u.Profile.DisplayName
	}
	return u.Username
}

// actorView is an account as a list shows it: its name, its page and the actor URL the social
// forms post.
type actorView struct {
	Name, Handle, Link, ActorURL string
	Remote                       bool
}

func (s *Server) actorViews(actors []domain.Actor) []actorView {
	out := make([]actorView, 0, len(actors))
	for _, a := range actors {
		out = append(out, s.actorView(a))
	}
	return out
}

func (s *Server) actorView(a domain.Actor) actorView {
	av := actorView{Name: a.Username, Handle: a.Username}
	if a.DisplayName != nil && *a.DisplayName != "" {
		av.Name = *a.DisplayName
	}
	switch a.Identity.Kind {
	case domain.IdentityLocal:
		av.Link = "/u/" + a.Identity.ID
		if id, err := uuid.Parse(a.Identity.ID); err == nil {
			av.ActorURL = s.Social.ActorURL(id)
		}
		av.Handle = s.Social.Handle(a.Username)
	default:
		av.Remote, av.ActorURL, av.Link = true, a.Identity.ID, ""
		if strings.HasPrefix(a.Identity.ID, "https://") {
			av.Link = a.Identity.ID
		}
		if av.Name == "" {
			av.Name, av.Handle = a.Identity.ID, ""
		}
	}
	return av
}
