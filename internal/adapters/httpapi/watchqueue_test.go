package httpapi_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// queued puts one Jellyfin watch of fixture in a's queue and returns its id.
func (b *bundle) queued(a account, fixture string) uuid.UUID {
	b.t.Helper()
	tok := b.webhookToken(a, map[string]any{"provider": "jellyfin"})
	b.accepted(b.jellyfin(tok.Token, fixture))
	q := b.queue(a)
	if len(q) == 0 {
		b.t.Fatalf("%s queued nothing", fixture)
	}
	return q[len(q)-1].ID
}

// TestConfirmLogsAReviewFromTheQueue: confirming a queued watch logs a review with watch_medium
// media_server at the watch's time, resolved from its external id, with the events POST
// /reviews commits for a new movie (MovieDiscovered, MovieEnrichmentRequested, ReviewLogged),
// and takes the watch out of the queue.
func TestConfirmLogsAReviewFromTheQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	id := b.queued(alice, "jellyfin-movie-stop.json")
	watched := b.queue(alice)[0].WatchedAt
	since := b.lastEvent()
	var out struct {
		Confirmed int `json:"confirmed"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{
		"confirmations": []map[string]any{{"watch_event_id": id, "rating": 5, "comment": "  still the best  "}},
	}}).json(t, &out)
	if out.Confirmed != 1 {
		t.Errorf("confirmed = %d, want 1", out.Confirmed)
	}
	if got, want := b.eventTypes(since), []string{"MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"}; !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	var diary struct {
		Items []struct {
			Movie struct {
				Title       string `json:"title"`
				ReleaseYear int    `json:"release_year"`
			} `json:"movie"`
			Review struct {
				Rating      int     `json:"rating"`
				Comment     *string `json:"comment"`
				WatchMedium string  `json:"watch_medium"`
			} `json:"review"`
		} `json:"items"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/diary?user_id=" + alice.id.String()}).json(t, &diary)
	if len(diary.Items) != 1 || diary.Items[0].Movie.Title != "Heat" || diary.Items[0].Movie.ReleaseYear != 1995 ||
		diary.Items[0].Review.Rating != 5 || diary.Items[0].Review.WatchMedium != "media_server" ||
		diary.Items[0].Review.Comment == nil || *diary.Items[0].Review.Comment != "still the best" {
		t.Fatalf("diary = %+v, want Heat (1995) rated 5 from the media server", diary)
	}
	if got := b.scalar(`SELECT external_metadata_id FROM movies`); got != "tmdb:949" {
		t.Errorf("movie external id = %q, want tmdb:949", got)
	}
	if got := b.scalar(`SELECT substr(watched_at, 1, 19) FROM reviews`); got != watched {
		t.Errorf("review watched_at = %q, want the watch's %q", got, watched)
	}
	if q := b.queue(alice); len(q) != 0 {
		t.Errorf("queue after confirming = %+v, want it empty", q)
	}
	if got := b.scalar(`SELECT status || '/' || (review_id = (SELECT id FROM reviews)) FROM watch_events`); got != "confirmed/1" {
		t.Errorf("watch event = %q, want confirmed with the review's id", got)
	}
	// A second confirmation of the same watch is a conflict and logs nothing.
	b.must(409, req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{
		"confirmations": []map[string]any{{"watch_event_id": id, "rating": 3}},
	}}).errorMessage(t)
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "1" {
		t.Errorf("reviews = %s, want 1", got)
	}
}

// TestConfirmWithoutExternalIDMatchesByTitleAndYear: a watch without ids resolves like a manual
// review: the stored movie of that title and year, no new movie, no discovery events.
func TestConfirmWithoutExternalIDMatchesByTitleAndYear(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"manual_title": "heat", "manual_release_year": 1995, "rating": 3, "watched_at": "2020-01-01",
	}})
	id := b.queued(alice, "jellyfin-movie-stop-no-ids.json")
	since := b.lastEvent()
	b.must(200, req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{
		"confirmations": []map[string]any{{"watch_event_id": id, "rating": 4}},
	}})
	if got := b.scalar(`SELECT count(*) || '/' || count(DISTINCT movie_id) FROM reviews`); got != "2/1" {
		t.Errorf("reviews/movies = %s, want 2 reviews of 1 movie", got)
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"ReviewLogged"}) {
		t.Errorf("events = %v, want [ReviewLogged]", got)
	}
}

// TestConfirmAndDismissAuthz: another user's watch is 403, an unknown id 404, a bad rating
// 400, a wrong shape 422; a failing batch confirms nothing.
func TestConfirmAndDismissAuthz(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	mine := b.queued(alice, "jellyfin-movie-stop.json")
	theirs := b.queued(bob, "jellyfin-movie-stop.json")
	confirm := func(cs ...map[string]any) req {
		return req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{"confirmations": cs}}
	}
	dismiss := func(ids ...any) req {
		return req{method: "POST", path: "/api/v1/watch-queue/dismiss", token: alice.token, body: map[string]any{"event_ids": ids}}
	}
	for name, c := range map[string]struct {
		r    req
		want int
	}{
		"confirm theirs":       {confirm(map[string]any{"watch_event_id": mine, "rating": 4}, map[string]any{"watch_event_id": theirs, "rating": 4}), 403},
		"confirm unknown":      {confirm(map[string]any{"watch_event_id": mine, "rating": 4}, map[string]any{"watch_event_id": uuid.New(), "rating": 4}), 404},
		"confirm rating 0":     {confirm(map[string]any{"watch_event_id": mine, "rating": 0}), 400},
		"confirm rating 6":     {confirm(map[string]any{"watch_event_id": mine, "rating": 6}), 400},
		"confirm rating float": {confirm(map[string]any{"watch_event_id": mine, "rating": 4.5}), 422},
		"confirm no rating":    {confirm(map[string]any{"watch_event_id": mine}), 422},
		"confirm no id":        {confirm(map[string]any{"rating": 4}), 422},
		"confirm bad id":       {confirm(map[string]any{"watch_event_id": "nope", "rating": 4}), 422},
		"confirm no list":      {req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{}}, 422},
		"confirm signed out":   {req{method: "POST", path: "/api/v1/watch-queue/confirm", body: map[string]any{"confirmations": []any{}}}, 401},
		"dismiss theirs":       {dismiss(mine, theirs), 403},
		"dismiss unknown":      {dismiss(mine, uuid.New()), 404},
		"dismiss bad id":       {dismiss("nope"), 422},
		"dismiss no list":      {req{method: "POST", path: "/api/v1/watch-queue/dismiss", token: alice.token, body: map[string]any{}}, 422},
		"queue signed out":     {req{method: "GET", path: "/api/v1/watch-queue"}, 401},
		"confirm not json":     {req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: "{"}, 400},
	} {
		resp := b.do(c.r)
		if resp.status != c.want {
			t.Errorf("%s: %d %s, want %d", name, resp.status, resp.body, c.want)
			continue
		}
		resp.errorMessage(t)
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "0" {
		t.Errorf("reviews after failed confirmations = %s, want none", got)
	}
	if got := b.scalar(`SELECT group_concat(status) FROM watch_events`); got != "pending,pending" {
		t.Errorf("watch events = %s, want both still pending", got)
	}
	if q := b.queue(bob); len(q) != 1 {
		t.Errorf("bob's queue = %+v, want his entry untouched", q)
	}
}

// TestDismissClosesWatchesWithoutAReview: dismissed watches leave the queue, count once, and an
// already dismissed one is not counted again.
func TestDismissClosesWatchesWithoutAReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	heat := b.queued(alice, "jellyfin-movie-stop.json")
	other := b.queued(alice, "jellyfin-movie-stop-no-ids.json")
	var out struct {
		Dismissed int `json:"dismissed"`
	}
	since := b.lastEvent()
	b.must(200, req{method: "POST", path: "/api/v1/watch-queue/dismiss", token: alice.token,
		body: map[string]any{"event_ids": []uuid.UUID{heat, heat}}}).json(t, &out)
	if out.Dismissed != 1 {
		t.Errorf("dismissed = %d, want 1", out.Dismissed)
	}
	b.must(200, req{method: "POST", path: "/api/v1/watch-queue/dismiss", token: alice.token,
		body: map[string]any{"event_ids": []uuid.UUID{heat, other}}}).json(t, &out)
	if out.Dismissed != 1 {
		t.Errorf("dismissed again = %d, want 1 (the first was already dismissed)", out.Dismissed)
	}
	if q := b.queue(alice); len(q) != 0 {
		t.Errorf("queue = %+v, want it empty", q)
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "0" {
		t.Errorf("reviews = %s, want none", got)
	}
	if got := b.eventTypes(since); len(got) != 0 {
		t.Errorf("events = %v, want none", got)
	}
	b.must(409, req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{
		"confirmations": []map[string]any{{"watch_event_id": heat, "rating": 3}},
	}})
}

// TestAutoConfirmTokenLogsTheReviewAtOnce: a token with an auto-confirm rating turns each
// accepted watch into a review with that rating in the webhook's own transaction; the queue
// stays empty and a repeated scrobble logs nothing more.
func TestAutoConfirmTokenLogsTheReviewAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	tok := b.webhookToken(alice, map[string]any{"provider": "plex", "auto_confirm_rating": 4})
	var listed []map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/settings/webhook-tokens", token: alice.token}).json(t, &listed)
	if len(listed) != 1 || listed[0]["auto_confirm_rating"] != float64(4) {
		t.Errorf("tokens = %v, want auto_confirm_rating 4", listed)
	}
	since := b.lastEvent()
	b.accepted(b.plex(tok.Token, "plex-movie-scrobble.json", true))
	b.accepted(b.plex(tok.Token, "plex-movie-scrobble.json", true))
	if got, want := b.eventTypes(since), []string{"WatchEventIngested", "MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"}; !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if got := b.scalar(`SELECT count(*) || '/' || max(rating) || '/' || max(watch_medium) FROM reviews`); got != "1/4/media_server" {
		t.Errorf("reviews = %s, want one rated 4 from the media server", got)
	}
	if q := b.queue(alice); len(q) != 0 {
		t.Errorf("queue = %+v, want it empty", q)
	}
	// Without a year or an id the movie cannot be resolved: the watch is queued instead.
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin", "auto_confirm_rating": 4})
	b.accepted(b.do(req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: map[string]any{
		"NotificationType": "PlaybackStop", "ItemType": "Movie", "PlayedToCompletion": true, "Name": "Home Movie",
	}}))
	if q := b.queue(alice); len(q) != 1 || q[0].Title != "Home Movie" {
		t.Errorf("queue = %+v, want the unresolvable watch queued", q)
	}
}

// TestConcurrentConfirmsLogOneReview: confirmations of one watch racing each other all pass the
// first check, but the store checks again inside its transaction: one logs the review, the
// others are conflicts.
func TestConcurrentConfirmsLogOneReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	id := b.queued(alice, "jellyfin-movie-stop.json")
	const n = 8
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			statuses <- b.do(req{method: "POST", path: "/api/v1/watch-queue/confirm", token: alice.token, body: map[string]any{
				"confirmations": []map[string]any{{"watch_event_id": id, "rating": 4}},
			}}).status
		})
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	if counts[200] != 1 || counts[409] != n-1 {
		t.Errorf("statuses = %v, want one 200 and %d 409", counts, n-1)
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "1" {
		t.Errorf("reviews = %s, want 1", got)
	}
}
