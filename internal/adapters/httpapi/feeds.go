package httpapi

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/feeds"

	"moviesdiary/internal/usecase/review"
)

// Media types of the feeds.
const (
	rssType  = "application/rss+xml"
	atomType = "application/atom+xml"
)

// feedFormat is one syndication format: how a gorilla/feeds Feed is written and served.
type feedFormat struct {
	contentType string
	write       func(f *feeds.Feed, w http.ResponseWriter) error
}

var (
	rssFormat  = feedFormat{rssType, func(f *feeds.Feed, w http.ResponseWriter) error { return f.WriteRss(w) }}
	atomFormat = feedFormat{atomType, func(f *feeds.Feed, w http.ResponseWriter) error { return f.WriteAtom(w) }}
)

// instanceFeed serves the instance's newest public (local) reviews as RSS 2.0 or Atom.
func (s *Server) instanceFeed(format feedFormat) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		entries, err := s.Feeds.Instance(r.Context())
		if err != nil {
			return err
		}
		f := s.newFeed("moviesdiary: recent reviews", "The newest reviews logged on "+s.host(), s.BaseURL+"/", entries)
		return writeFeed(w, f, format)
	}
}

// userFeed serves one local user's newest reviews as RSS 2.0 or Atom.
func (s *Server) userFeed(format feedFormat) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		u, entries, err := s.Feeds.User(r.Context(), id)
		if err != nil {
			return err
		}
		f := s.newFeed(u.Username+"'s reviews on moviesdiary", "The newest reviews @"+u.Username+"@"+s.host()+" logged",
			s.BaseURL+"/u/"+u.ID.String(), entries)
		f.Author = &feeds.Author{Name: u.Username}
		return writeFeed(w, f, format)
	}
}

// newFeed is a feed of entries: each item's guid is the review's ActivityPub id (stable, and
// the same on every instance that received it), its link the movie's page in the web client,
// its dates when the review was logged and last changed.
func (s *Server) newFeed(title, description, link string, entries []review.Entry) *feeds.Feed {
	f := &feeds.Feed{Title: title, Description: description, Link: &feeds.Link{Href: link}}
	for _, e := range entries {
		rv, m := e.Review, e.Movie
		item := &feeds.Item{
			Title:       feedTitle(e),
			Link:        &feeds.Link{Href: s.BaseURL + "/movie/" + m.ID.String()},
			Author:      &feeds.Author{Name: e.UserDisplayName},
			Description: feedDescription(e),
			Id:          s.BaseURL + "/reviews/" + rv.ID.String(),
			IsPermaLink: "false",
			Created:     rv.CreatedAt.UTC(),
			Updated:     rv.UpdatedAt.UTC(),
		}
		f.Items = append(f.Items, item)
		if t := rv.UpdatedAt.UTC(); t.After(f.Updated) {
			f.Updated = t
		}
	}
	if f.Updated.IsZero() {
		// An empty feed still needs a date (Atom requires one); the Unix epoch says "nothing yet".
		f.Updated = time.Unix(0, 0).UTC()
	}
	return f
}

// feedTitle is "alice rated Heat (1995) ★★★★☆".
func feedTitle(e review.Entry) string {
	year := ""
	if e.Movie.ReleaseYear > 0 {
		year = fmt.Sprintf(" (%d)", e.Movie.ReleaseYear)
	}
	stars := strings.Repeat("★", e.Review.Rating) + strings.Repeat("☆", max(0, 5-e.Review.Rating))
	return fmt.Sprintf("%s rated %s%s %s", e.UserDisplayName, e.Movie.Title, year, stars)
}

// feedDescription is the review as escaped HTML: rating, comment and the day it was watched.
func feedDescription(e review.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p>%d/5</p>", e.Review.Rating)
	if c := e.Review.Comment; c != nil && *c != "" {
		b.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(*c), "\n", "<br>") + "</p>")
	}
	b.WriteString("<p>Watched " + e.Review.WatchedAt.UTC().Format("Jan 2, 2006") + "</p>")
	return b.String()
}

func writeFeed(w http.ResponseWriter, f *feeds.Feed, format feedFormat) error {
	w.Header().Set("Content-Type", format.contentType+"; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	return format.write(f, w)
}

// host is the instance's host name, for titles.
func (s *Server) host() string {
	h := strings.TrimPrefix(strings.TrimPrefix(s.BaseURL, "https://"), "http://")
	return strings.TrimSuffix(h, "/")
}
