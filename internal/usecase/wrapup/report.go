package wrapup

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Viewing is one review in a wrap-up's range with what the report needs of its movie.
type Viewing struct {
	WatchedAt time.Time
	Rating    int
	Medium    *string
	MovieID   uuid.UUID
	Title     string
	Director  *string
	Genres    []string
	Runtime   *int     // minutes
	Cast      []string // top-billed actors
}

// TopN is how many entries each ranking of the report holds.
const TopN = 10

// Count is a ranked name.
type Count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// MonthCount is one month of the range.
type MonthCount struct {
	Month string `json:"month"` // YYYY-MM
	Count int    `json:"count"`
}

// Rewatch is a movie seen more than once in the range.
type Rewatch struct {
	MovieID  uuid.UUID `json:"movie_id"`
	Title    string    `json:"title"`
	Viewings int       `json:"viewings"`
}

// Report is the wrap-up document GET /api/v1/wrapups/{id}/report returns.
type Report struct {
	Scope     string     `json:"scope"` // "user" or "instance"
	UserID    *uuid.UUID `json:"user_id,omitempty"`
	DateRange struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"date_range"`
	GeneratedAt           string       `json:"generated_at"`
	TotalMovies           int          `json:"total_movies"`
	TotalViewings         int          `json:"total_viewings"`
	TotalWatchTimeMinutes int          `json:"total_watch_time_minutes"`
	AverageRating         *float64     `json:"average_rating"`
	MoviesPerMonth        []MonthCount `json:"movies_per_month"`
	TopDirectors          []Count      `json:"top_directors"`
	TopActors             []Count      `json:"top_actors"`
	TopGenres             []Count      `json:"top_genres"`
	RatingDistribution    [5]int       `json:"rating_distribution"`
	WatchMediumBreakdown  []Count      `json:"watch_medium_breakdown"`
	RewatchCount          int          `json:"rewatch_count"`
	Rewatches             []Rewatch    `json:"rewatches"`
}

// maxMonths bounds movies_per_month (a century).
const maxMonths = 1200

// BuildReport computes the report of a wrap-up from its viewings. It is a pure function of its
// inputs, so a resumed generation computes the same report.
func BuildReport(w domain.WrapUp, viewings []Viewing, now time.Time) Report {
	r := Report{Scope: "instance", UserID: w.UserID, GeneratedAt: now.UTC().Format(time.RFC3339),
		TotalViewings: len(viewings), MoviesPerMonth: []MonthCount{}, Rewatches: []Rewatch{}}
	if w.UserID != nil {
		r.Scope = "user"
	}
	r.DateRange.Start, r.DateRange.End = w.StartDate.String(), w.EndDate.String()

	months := map[string]int{}
	directors, actors, genres, media := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	perMovie := map[uuid.UUID]*Rewatch{}
	seenFor := func(m map[string]int, name string, movie uuid.UUID, seen map[string]bool) {
		if k := name + "\x00" + movie.String(); !seen[k] {
			seen[k] = true
			m[name]++
		}
	}
	seen := map[string]bool{}
	ratingSum := 0
	for _, v := range viewings {
		months[v.WatchedAt.UTC().Format("2006-01")]++
		if v.Runtime != nil && *v.Runtime > 0 {
			r.TotalWatchTimeMinutes += *v.Runtime
		}
		if v.Rating >= domain.MinRating && v.Rating <= domain.MaxRating {
			r.RatingDistribution[v.Rating-1]++
			ratingSum += v.Rating
		}
		if v.Medium != nil {
			media[*v.Medium]++
		}
		if pm := perMovie[v.MovieID]; pm != nil {
			pm.Viewings++
			continue
		}
		perMovie[v.MovieID] = &Rewatch{MovieID: v.MovieID, Title: v.Title, Viewings: 1}
		// Directors, actors and genres count movies, not viewings.
		if v.Director != nil && *v.Director != "" {
			seenFor(directors, *v.Director, v.MovieID, seen)
		}
		for _, a := range v.Cast {
			seenFor(actors, a, v.MovieID, seen)
		}
		for _, g := range v.Genres {
			seenFor(genres, g, v.MovieID, seen)
		}
	}
	r.TotalMovies = len(perMovie)
	if n := len(viewings); n > 0 && ratingSum > 0 {
		avg := float64(ratingSum) / float64(n)
		r.AverageRating = &avg
	}
	start := time.Date(w.StartDate.Time().Year(), w.StartDate.Time().Month(), 1, 0, 0, 0, 0, time.UTC)
	for m := start; !m.After(w.EndDate.Time()) && len(r.MoviesPerMonth) < maxMonths; m = m.AddDate(0, 1, 0) {
		key := m.Format("2006-01")
		r.MoviesPerMonth = append(r.MoviesPerMonth, MonthCount{Month: key, Count: months[key]})
	}
	r.TopDirectors, r.TopActors, r.TopGenres = ranked(directors, TopN), ranked(actors, TopN), ranked(genres, TopN)
	r.WatchMediumBreakdown = ranked(media, len(media))
	for _, pm := range perMovie {
		if pm.Viewings > 1 {
			r.RewatchCount += pm.Viewings - 1
			r.Rewatches = append(r.Rewatches, *pm)
		}
	}
	slices.SortFunc(r.Rewatches, func(a, b Rewatch) int {
		return cmp.Or(b.Viewings-a.Viewings, cmp.Compare(a.Title, b.Title), cmp.Compare(a.MovieID.String(), b.MovieID.String()))
	})
	if len(r.Rewatches) > TopN {
		r.Rewatches = r.Rewatches[:TopN]
	}
	return r
}

// ranked is the n largest counts, ties by name.
func ranked(m map[string]int, n int) []Count {
	out := make([]Count, 0, len(m))
	for name, c := range m {
		out = append(out, Count{Name: name, Count: c})
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Or(b.Count-a.Count, cmp.Compare(a.Name, b.Name)) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// MarshalReport encodes a report.
func MarshalReport(r Report) (json.RawMessage, error) { return json.Marshal(r) }
