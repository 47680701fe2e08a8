package wrapup_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

// reportKeys are the keys of the original's WrapUpReport (shared/reference/wrapup-report.md).
var reportKeys = []string{"scope", "date_range", "generated_at", "total_movies", "total_watch_time_minutes",
	"movies_per_month", "busiest_month", "busiest_day_of_week", "avg_rating", "rating_distribution",
	"longest_movie", "shortest_movie", "top_directors", "top_actors", "director_diversity", "actor_diversity",
	"top_genres", "genre_diversity", "highest_rated_genre", "lowest_rated_genre", "top_keywords",
	"total_budget_watched", "avg_budget", "language_distribution", "watch_medium_distribution", "oldest_movie",
	"newest_movie", "total_rewatches", "most_rewatched_movie", "avg_rating_change_on_rewatch",
	"highest_rated_movie", "lowest_rated_movie", "first_movie_of_period", "last_movie_of_period",
	"most_active_user", "most_watched_movie_global", "total_users_active", "poster_paths", "top_cast_profile_paths"}

var arrayKeys = []string{"movies_per_month", "rating_distribution", "top_directors", "top_actors", "top_genres",
	"top_keywords", "language_distribution", "watch_medium_distribution", "poster_paths", "top_cast_profile_paths"}

func wrapUp(t *testing.T, user *uuid.UUID, start, end string) domain.WrapUp {
	t.Helper()
	s, e, err := domain.NewWrapUpRange(start, end)
	if err != nil {
		t.Fatal(err)
	}
	return domain.WrapUp{ID: uuid.New(), UserID: user, StartDate: s, EndDate: e}
}

func encode(t *testing.T, r wrapup.Report) (string, map[string]json.RawMessage) {
	t.Helper()
	raw, err := wrapup.MarshalReport(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return string(raw), m
}

// TestEmptyReportSchema pins the wire form with no viewings: every key, arrays [], the rest
// zero or null, and the original's scope encodings.
func TestEmptyReportSchema(t *testing.T) {
	t.Parallel()
	user := uuid.MustParse("11111111-2222-4333-8444-555555555555")
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, scope := range []*uuid.UUID{&user, nil} {
		raw, m := encode(t, wrapup.BuildReport(wrapUp(t, scope, "2024-11-15", "2025-01-10"), nil, now))
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := slices.Clone(reportKeys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("keys = %v\nwant %v", keys, want)
		}
		for _, k := range arrayKeys {
			if !strings.HasPrefix(string(m[k]), "[") {
				t.Errorf("%s = %s, want an array", k, m[k])
			}
		}
		for k, want := range map[string]string{
			"date_range":          `{"start":"2024-11-15","end":"2025-01-10"}`,
			"generated_at":        `"2025-01-02T03:04:05Z"`,
			"rating_distribution": `[0,0,0,0,0]`,
			"movies_per_month": `[{"year_month":"2024-11","label":"Nov 2024","count":0},` +
				`{"year_month":"2024-12","label":"Dec 2024","count":0},{"year_month":"2025-01","label":"Jan 2025","count":0}]`,
			"avg_rating": "null", "busiest_month": "null", "busiest_day_of_week": "null", "longest_movie": "null",
			"total_budget_watched": "null", "avg_rating_change_on_rewatch": "null", "most_active_user": "null",
			"top_actors": "[]", "poster_paths": "[]", "total_movies": "0", "total_rewatches": "0",
		} {
			if string(m[k]) != want {
				t.Errorf("%s = %s, want %s", k, m[k], want)
			}
		}
		wantScope, wantUsers := `{"User":"11111111-2222-4333-8444-555555555555"}`, "null"
		if scope == nil {
			wantScope, wantUsers = `"Global"`, "0"
		}
		if string(m["scope"]) != wantScope || string(m["total_users_active"]) != wantUsers {
			t.Errorf("scope %s, total_users_active %s; want %s, %s (%s)", m["scope"], m["total_users_active"], wantScope, wantUsers, raw)
		}
		var back wrapup.Report
		if err := json.Unmarshal([]byte(raw), &back); err != nil || (back.Scope.User == nil) != (scope == nil) {
			t.Errorf("round trip: %v, scope %v", err, back.Scope)
		}
		if !wrapup.IsCurrent(json.RawMessage(raw)) {
			t.Error("a fresh report is not of the current schema")
		}
	}
	if wrapup.IsCurrent(json.RawMessage(`{"scope":"user","total_viewings":3}`)) || wrapup.IsCurrent(json.RawMessage(`not json`)) {
		t.Error("an old report passes for the current schema")
	}
}

func p[T any](v T) *T { return &v }

// TestReportFigures checks each figure on a small instance-wide diary.
func TestReportFigures(t *testing.T) {
	t.Parallel()
	alice, bob := uuid.New(), uuid.New()
	br, heat, ronin := uuid.New(), uuid.New(), uuid.New()
	ford, pacino, deniro := uuid.New(), uuid.New(), uuid.New()
	blade := func(at string, rating int, who uuid.UUID) wrapup.Viewing {
		return wrapup.Viewing{WatchedAt: mustTime(t, at), Rating: rating, UserID: who, UserName: "alice", MovieID: br,
			Title: "Blade Runner", Year: 1982, Poster: p("posters/br"), Director: p("Ridley Scott"), Runtime: p(117),
			Genres: []string{"Science Fiction"}, Budget: p(int64(28_000_000)), Language: p("en"), Keywords: []string{"android"},
			Cast: []wrapup.CastMember{{PersonID: ford, Name: "Harrison Ford", ProfilePath: p("/ford.jpg")}}, Medium: p("cinema")}
	}
	heatV := func(at string, rating int, who uuid.UUID) wrapup.Viewing {
		return wrapup.Viewing{WatchedAt: mustTime(t, at), Rating: rating, UserID: who, UserName: "Bob B.", MovieID: heat,
			Title: "Heat", Year: 1995, Poster: p("posters/heat"), Director: p("Michael Mann"), DirectorID: p(uuid.New()),
			Runtime: p(170), Genres: []string{"Crime", "Drama"}, Language: p("en"), Keywords: []string{"heist", "android"},
			Cast: []wrapup.CastMember{{PersonID: pacino, Name: "Al Pacino"}, {PersonID: deniro, Name: "Robert De Niro", ProfilePath: p("/dn.jpg")}}}
	}
	viewings := []wrapup.Viewing{
		blade("2024-01-01T20:00:00Z", 3, alice), // a Monday
		heatV("2024-01-08T20:00:00Z", 5, bob),   // a Monday
		heatV("2024-02-03T20:00:00Z", 4, bob),   // a Saturday
		blade("2024-02-05T20:00:00Z", 5, alice), // a Monday
		{WatchedAt: mustTime(t, "2024-03-09T20:00:00Z"), Rating: 1, UserID: bob, UserName: "Bob B.", MovieID: ronin,
			Title: "Ronin", Year: 1998, Runtime: p(122), Language: p("fr"), Genres: []string{"Crime"}},
		heatV("2024-03-10T20:00:00Z", 3, bob),
	}
	r := wrapup.BuildReport(wrapUp(t, nil, "2024-01-01", "2024-03-31"), viewings, time.Now())
	check := func(name string, ok bool, got any) {
		t.Helper()
		if !ok {
			t.Errorf("%s = %+v", name, got)
		}
	}
	check("total_movies", r.TotalMovies == 6, r.TotalMovies)
	check("total_watch_time", r.TotalWatchTimeMinutes == 117*2+170*3+122, r.TotalWatchTimeMinutes)
	check("busiest_month", *r.BusiestMonth == "Jan 2024", *r.BusiestMonth) // a tie with Feb and Mar: the earliest
	check("busiest_day", *r.BusiestDayOfWeek == "Monday", *r.BusiestDayOfWeek)
	check("avg_rating", *r.AvgRating == 21.0/6, *r.AvgRating)
	check("rating_distribution", r.RatingDistribution == [5]int{1, 0, 2, 1, 2}, r.RatingDistribution)
	check("longest", r.LongestMovie.Title == "Heat" && *r.LongestMovie.RuntimeMinutes == 170, r.LongestMovie)
	check("shortest", r.ShortestMovie.Title == "Blade Runner", r.ShortestMovie)
	check("oldest/newest", r.OldestMovie.Title == "Blade Runner" && r.NewestMovie.Title == "Ronin" && r.NewestMovie.PosterPath == nil,
		[]any{r.OldestMovie, r.NewestMovie})
	check("highest/lowest", r.HighestRatedMovie.Title == "Heat" && r.LowestRatedMovie.Title == "Ronin",
		[]any{r.HighestRatedMovie, r.LowestRatedMovie})
	check("first/last", r.FirstMovieOfPeriod.Title == "Blade Runner" && r.LastMovieOfPeriod.Title == "Heat" &&
		*r.FirstMovieOfPeriod.MovieID == br && r.FirstMovieOfPeriod.Year == 1982, []any{r.FirstMovieOfPeriod, r.LastMovieOfPeriod})
	// Heat three viewings, Blade Runner two: both directors reach MinViewings; actors tie by name.
	check("top_directors", len(r.TopDirectors) == 2 && r.TopDirectors[0].Name == "Michael Mann" && r.TopDirectors[0].Count == 3 &&
		r.TopDirectors[0].AvgRating == 4 && r.TopDirectors[0].PersonID != nil && r.TopDirectors[1].PersonID == nil, r.TopDirectors)
	check("director_diversity", r.DirectorDiversity == 2, r.DirectorDiversity)
	check("top_actors", len(r.TopActors) == 3 && r.TopActors[0].Name == "Al Pacino" && *r.TopActors[1].PersonID == deniro &&
		r.TopActors[2].Name == "Harrison Ford" && r.TopActors[2].AvgRating == 4, r.TopActors)
	check("top_cast_profile_paths", slices.Equal(r.TopCastProfilePaths, []string{"/dn.jpg", "/ford.jpg"}), r.TopCastProfilePaths)
	check("top_genres", len(r.TopGenres) == 3 && r.TopGenres[0] == (wrapup.GenreStat{Genre: "Crime", Count: 4, AvgRating: 13.0 / 4}), r.TopGenres)
	check("genre extremes", *r.HighestRatedGenre == "Drama" && *r.LowestRatedGenre == "Crime", []any{r.HighestRatedGenre, r.LowestRatedGenre})
	check("top_keywords", len(r.TopKeywords) == 2 && r.TopKeywords[0] == (wrapup.KeywordStat{Keyword: "android", Count: 5}), r.TopKeywords)
	check("budget", *r.TotalBudgetWatched == 56_000_000 && *r.AvgBudget == 28_000_000, []any{r.TotalBudgetWatched, r.AvgBudget})
	check("languages", len(r.LanguageDistribution) == 2 && r.LanguageDistribution[0] == (wrapup.LanguageStat{Language: "en", Count: 5}), r.LanguageDistribution)
	check("media", len(r.WatchMediumDistribution) == 1 && r.WatchMediumDistribution[0].Count == 2, r.WatchMediumDistribution)
	check("rewatches", r.TotalRewatches == 3 && r.MostRewatchedMovie.Title == "Heat", []any{r.TotalRewatches, r.MostRewatchedMovie})
	// Blade Runner 3 → 5 (+2), Heat 5 → 3 (−2).
	check("avg_rating_change", *r.AvgRatingChangeOnRewatch == 0, *r.AvgRatingChangeOnRewatch)
	check("most_active_user", r.MostActiveUser.UserID == bob && r.MostActiveUser.DisplayName == "Bob B.", r.MostActiveUser)
	check("most_watched", r.MostWatchedMovieGlobal.Title == "Heat", r.MostWatchedMovieGlobal)
	check("users_active", *r.TotalUsersActive == 2, *r.TotalUsersActive)
	check("poster_paths", slices.Equal(r.PosterPaths, []string{"posters/br", "posters/heat"}), r.PosterPaths)

	// A user's report has no instance-wide figures.
	u := wrapup.BuildReport(wrapUp(t, &alice, "2024-01-01", "2024-03-31"), viewings[:1], time.Now())
	check("user scope", u.MostActiveUser == nil && u.MostWatchedMovieGlobal == nil && u.TotalUsersActive == nil &&
		len(u.TopDirectors) == 0 && u.DirectorDiversity == 1 && u.HighestRatedGenre == nil, u)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
