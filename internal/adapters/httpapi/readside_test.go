package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

func TestDiaryFeedHistoryAndMoviePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	_, heat := b.logReview(alice, "Heat", 2, "2024-01-01")
	if _, again := b.logReview(alice, "heat", 5, "2024-02-01"); again != heat {
		t.Fatalf("a second manual review of the same title and year made a new movie %s (want %s)", again, heat)
	}
	_, ronin := b.logReview(alice, "Ronin", 4, "2024-01-15")
	b.logReview(bob, "Heat", 3, "2024-03-01")

	type page struct {
		Items []struct {
			Movie struct {
				ID    uuid.UUID `json:"id"`
				Title string    `json:"title"`
			} `json:"movie"`
			Review struct {
				Rating    int    `json:"rating"`
				WatchedAt string `json:"watched_at"`
			} `json:"review"`
			UserDisplayName string `json:"user_display_name"`
			ActorURL        string `json:"actor_url"`
		} `json:"items"`
		TotalCount int `json:"total_count"`
		Limit      int `json:"limit"`
		Offset     int `json:"offset"`
	}
	var p page
	b.must(200, req{method: "GET", path: "/api/v1/diary?user_id=" + alice.id.String() + "&sort_by=rating_desc&limit=2"}).json(t, &p)
	if p.TotalCount != 3 || len(p.Items) != 2 || p.Items[0].Review.Rating != 5 || p.Limit != 2 {
		t.Errorf("alice's diary by rating = %+v", p)
	}
	b.must(200, req{method: "GET", path: "/api/v1/diary?movie_id=" + heat.String() + "&sort_by=asc"}).json(t, &p)
	if p.TotalCount != 3 || p.Items[0].Review.WatchedAt != "2024-01-01T00:00:00" {
		t.Errorf("Heat's diary, oldest first = %+v", p)
	}
	b.must(200, req{method: "GET", path: "/api/v1/activity-feed?limit=1&offset=1"}).json(t, &p)
	if p.TotalCount != 4 || len(p.Items) != 1 || p.Offset != 1 || p.Items[0].UserDisplayName != "alice" ||
		p.Items[0].ActorURL != "http://diary.test/users/"+alice.id.String() {
		t.Errorf("feed page 2 = %+v", p)
	}

	var h struct {
		Viewings []struct{ Rating int } `json:"viewings"`
		Trend    string                 `json:"trend"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/movies/" + heat.String() + "/history"}).json(t, &h)
	if len(h.Viewings) != 3 || h.Viewings[0].Rating != 2 || h.Trend != "improved" {
		t.Errorf("history = %+v, want 3 viewings from rating 2, improved", h)
	}

	var d struct {
		Movie struct{ Title string } `json:"movie"`
		Stats struct {
			TotalCount      int      `json:"total_count"`
			AvgRating       *float64 `json:"avg_rating"`
			RatingHistogram []int    `json:"rating_histogram"`
		} `json:"stats"`
		Reviews struct {
			TotalCount int `json:"total_count"`
			Items      []struct {
				UserDisplay string `json:"user_display"`
			} `json:"items"`
		} `json:"reviews"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/movies/" + heat.String()}).json(t, &d)
	if d.Stats.TotalCount != 3 || d.Stats.AvgRating == nil || !slices.Equal(d.Stats.RatingHistogram, []int{0, 1, 1, 0, 1}) ||
		d.Reviews.TotalCount != 3 || d.Reviews.Items[0].UserDisplay != "bob" {
		t.Errorf("movie page = %+v", d)
	}

	var list struct {
		Items []struct {
			ID uuid.UUID `json:"id"`
		} `json:"items"`
		TotalCount int `json:"total_count"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/movies?search=ONI&limit=10"}).json(t, &list)
	if list.TotalCount != 1 || list.Items[0].ID != ronin {
		t.Errorf("movies matching ONI = %+v, want Ronin", list)
	}

	var prof struct {
		Username string `json:"username"`
		Handle   string `json:"handle"`
		Stats    struct {
			TotalMovies int     `json:"total_movies"`
			Most        *string `json:"most_active_month"`
		} `json:"stats"`
		Entries struct {
			TotalCount int `json:"total_count"`
		} `json:"entries"`
		Email *string `json:"email"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/users/" + alice.id.String() + "?view=recent", token: bob.token}).json(t, &prof)
	if prof.Username != "alice" || prof.Handle != "@alice@diary.test" || prof.Stats.TotalMovies != 3 ||
		prof.Entries.TotalCount != 3 || prof.Stats.Most == nil || *prof.Stats.Most != "2024-01" || prof.Email != nil {
		t.Errorf("profile = %+v", prof)
	}
}

func TestPatchNullClearsAndAbsentKeeps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	var out struct {
		Review struct{ ID string } `json:"review"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2024-03-01",
		"comment": "  tense  ", "watch_medium": "cinema",
	}}).json(t, &out)
	path := "/api/v1/reviews/" + out.Review.ID
	row := func() string {
		return b.scalar(`SELECT rating || '|' || ifnull(comment, 'NULL') || '|' || ifnull(watch_medium, 'NULL') || '|' || watched_at FROM reviews`)
	}
	if got := row(); got != "4|tense|cinema|2024-03-01T00:00:00.000Z" {
		t.Fatalf("stored review = %s (the comment must be trimmed)", got)
	}
	b.must(200, req{method: "PATCH", path: path, token: a.token, body: map[string]any{"comment": nil}})
	if got := row(); got != "4|NULL|cinema|2024-03-01T00:00:00.000Z" {
		t.Errorf("after comment: null = %s", got)
	}
	b.must(200, req{method: "PATCH", path: path, token: a.token, body: map[string]any{"watch_medium": nil, "rating": 2}})
	if got := row(); got != "2|NULL|NULL|2024-03-01T00:00:00.000Z" {
		t.Errorf("after watch_medium: null, rating: 2 = %s", got)
	}
	b.must(200, req{method: "PATCH", path: path, token: a.token, body: map[string]any{}})
	b.must(200, req{method: "PATCH", path: path, token: a.token, body: map[string]any{"watched_at": "2024-04-02 21:00:00", "watch_medium": "tv"}})
	if got := row(); got != "2|NULL|tv|2024-04-02T21:00:00.000Z" {
		t.Errorf("after watched_at and watch_medium = %s", got)
	}
}

func TestWatchlist(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	_, movie := b.logReview(a, "Heat", 4, "2024-03-01")
	since := b.lastEvent()
	add := req{method: "POST", path: "/api/v1/watchlist", token: a.token, body: map[string]any{"movie_id": movie}}
	b.must(201, add)
	b.must(201, add) // idempotent
	if got := b.eventTypes(since); !slices.Equal(got, []string{"WatchlistEntryAdded"}) {
		t.Errorf("events of adding twice = %v, want one WatchlistEntryAdded", got)
	}
	var list struct {
		Items []struct {
			ID      uuid.UUID `json:"id"`
			Movie   struct{ Title string }
			AddedAt string `json:"added_at"`
		} `json:"items"`
		TotalCount int `json:"total_count"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/watchlist", token: a.token}).json(t, &list)
	if list.TotalCount != 1 || list.Items[0].Movie.Title != "Heat" || list.Items[0].ID == uuid.Nil || list.Items[0].AddedAt == "" {
		t.Errorf("watchlist = %+v", list)
	}
	var on struct {
		OnWatchlist bool `json:"on_watchlist"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/watchlist/" + movie.String(), token: a.token}).json(t, &on)
	if !on.OnWatchlist {
		t.Error("on_watchlist = false after adding")
	}
	b.must(204, req{method: "DELETE", path: "/api/v1/watchlist/" + movie.String(), token: a.token})
	b.must(404, req{method: "DELETE", path: "/api/v1/watchlist/" + movie.String(), token: a.token})
	b.must(200, req{method: "GET", path: "/api/v1/watchlist/" + movie.String(), token: a.token}).json(t, &on)
	if on.OnWatchlist {
		t.Error("on_watchlist = true after removing")
	}
	if got := b.scalar(`SELECT count(*) FROM movies`); got != "1" {
		t.Errorf("movies = %s: removing from the watchlist deleted a reviewed movie", got)
	}
}

func TestSocialListsRoundTripActorURLs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: alice.token, body: map[string]any{"handle": "@Bob"}})
	b.must(200, req{method: "POST", path: "/api/v1/social/follow", token: alice.token, body: map[string]any{"handle": "bob"}})
	type actors struct {
		Actors []struct {
			Handle string `json:"handle"`
			URL    string `json:"url"`
		} `json:"actors"`
	}
	var pending, following, followers actors
	b.must(200, req{method: "GET", path: "/api/v1/social/followers/pending", token: bob.token}).json(t, &pending)
	if len(pending.Actors) != 1 || pending.Actors[0].URL != "http://diary.test/users/"+alice.id.String() ||
		pending.Actors[0].Handle != "@alice@diary.test" {
		t.Fatalf("bob's pending = %+v", pending)
	}
	b.must(200, req{method: "GET", path: "/api/v1/social/following", token: alice.token}).json(t, &following)
	if len(following.Actors) != 0 {
		t.Errorf("alice follows %+v before bob accepted", following)
	}
	// The url a list returns is accepted back.
	b.must(200, req{method: "POST", path: "/api/v1/social/followers/accept", token: bob.token,
		body: map[string]any{"actor_url": pending.Actors[0].URL}})
	b.must(200, req{method: "GET", path: "/api/v1/social/following", token: alice.token}).json(t, &following)
	b.must(200, req{method: "GET", path: "/api/v1/users/" + bob.id.String() + "/followers", token: alice.token}).json(t, &followers)
	if len(following.Actors) != 1 || following.Actors[0].Handle != "@bob@diary.test" || len(followers.Actors) != 1 {
		t.Errorf("after accept: alice follows %+v, bob's followers %+v", following, followers)
	}
	// A blocked user cannot follow again.
	b.must(204, req{method: "POST", path: "/api/v1/social/block", token: bob.token,
		body: map[string]any{"actor_url": "http://diary.test/users/" + alice.id.String()}})
	b.must(403, req{method: "POST", path: "/api/v1/social/follow", token: alice.token, body: map[string]any{"handle": "bob"}})
	var blocked []struct {
		URL string `json:"url"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/social/blocked", token: bob.token}).json(t, &blocked)
	if len(blocked) != 1 || blocked[0].URL != "http://diary.test/users/"+alice.id.String() {
		t.Errorf("blocked = %+v", blocked)
	}
}

func TestWrapUpRequestsAreDeduplicated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.register("alice")
	since := b.lastEvent()
	gen := req{method: "POST", path: "/api/v1/wrapups/generate", token: admin.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31"}}
	var first, second struct{ ID string }
	b.must(200, gen).json(t, &first)
	b.must(200, gen).json(t, &second)
	if first.ID != second.ID {
		t.Errorf("a second request for the same range made wrap-up %s, want the live %s", second.ID, first.ID)
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"WrapUpRequested"}) {
		t.Errorf("events = %v, want one WrapUpRequested", got)
	}
	report := req{method: "GET", path: "/api/v1/wrapups/" + first.ID + "/report", token: admin.token}
	if got := b.must(202, report); len(got.body) != 0 {
		t.Errorf("202 body = %q, want empty (the client reads any body as the report)", got.body)
	}
	if _, err := b.db.Exec(`UPDATE wrapups SET status = 'Ready', report = '{"total_movies": 7, "top_cast_profile_paths": []}'`); err != nil {
		t.Fatal(err)
	}
	if got := string(b.must(200, report).body); got != `{"total_movies": 7, "top_cast_profile_paths": []}` {
		t.Errorf("report = %s", got)
	}
	if _, err := b.db.Exec(`UPDATE wrapups SET status = 'Failed', error_message = 'boom'`); err != nil {
		t.Fatal(err)
	}
	b.must(409, report).errorMessage(t)
	b.must(200, gen).json(t, &second)
	if second.ID == first.ID {
		t.Error("a failed wrap-up blocked a new request")
	}
	var list struct {
		Items []struct{ Status string } `json:"items"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/wrapups", token: admin.token}).json(t, &list)
	if len(list.Items) != 2 || list.Items[0].Status != "Pending" {
		t.Errorf("wrap-ups = %+v", list)
	}
	b.must(204, req{method: "DELETE", path: "/api/v1/wrapups/" + first.ID, token: admin.token})
	b.must(404, req{method: "GET", path: "/api/v1/wrapups/" + first.ID, token: admin.token})
}

func TestEnrichedMovieProfileAndPeople(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	_, movie := b.logReview(a, "Heat", 4, "2024-03-01")
	profile := "/api/v1/movies/" + movie.String() + "/profile"
	b.must(404, req{method: "GET", path: profile}).errorMessage(t)
	person := uuid.NewSHA1(uuid.NameSpaceURL, []byte("tmdb:1158"))
	for _, q := range []string{
		`INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES ('` + movie.String() + `', '{"tmdb_id": 949}', '2024-03-02T00:00:00Z')`,
		`INSERT INTO people (id, external_id, name) VALUES ('` + person.String() + `', 'tmdb:1158', 'Al Pacino')`,
		`INSERT INTO movie_credits (movie_id, person_id, kind, role, billing_order) VALUES ('` + movie.String() + `', '` + person.String() + `', 'cast', 'Vincent Hanna', 0)`,
	} {
		if _, err := b.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(b.must(200, req{method: "GET", path: profile}).body); got != `{"tmdb_id": 949}` {
		t.Errorf("profile = %s", got)
	}
	since := b.lastEvent()
	var credits struct {
		Person struct {
			Name     string `json:"name"`
			Enriched bool   `json:"enriched"`
		} `json:"person"`
		Cast []struct {
			Character string `json:"character"`
		} `json:"cast"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/people/" + person.String() + "/credits"}).json(t, &credits)
	if credits.Person.Name != "Al Pacino" || credits.Person.Enriched || len(credits.Cast) != 1 || credits.Cast[0].Character != "Vincent Hanna" {
		t.Errorf("credits = %+v", credits)
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"PersonEnrichmentRequested"}) {
		t.Errorf("reading an unenriched person enqueued %v, want PersonEnrichmentRequested", got)
	}
}
