package web_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

func TestHomeForAVisitor(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := mustStatus(t, b.browser().get("/"), http.StatusOK)
	if ct := p.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	contains(t, p, "<!doctype html>", `<html lang="en">`, "Latest reviews", `href="/login"`, `href="/register"`,
		`href="/static/style.css"`, "No reviews yet")
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"} {
		if p.header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	css := mustStatus(t, b.browser().get("/static/style.css"), http.StatusOK)
	if !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") || !strings.Contains(css.body, "prefers-color-scheme") {
		t.Errorf("stylesheet: %q", css.header.Get("Content-Type"))
	}
}

func TestRegisterLogOutAndLogIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	form := mustStatus(t, br.get("/register"), http.StatusOK)
	contains(t, form, `name="csrf"`, `<label for="email">`, `<label for="username">`, `<label for="password">`)
	p := br.post("/register", url.Values{"email": {"ann@example.com"}, "username": {"ann"},
		"password": {"correct horse"}, "password2": {"correct horse"}})
	mustStatus(t, p, http.StatusSeeOther)
	if p.location() != "/?done=registered" {
		t.Errorf("Location %q", p.location())
	}
	for _, raw := range p.header.Values("Set-Cookie") {
		if (strings.HasPrefix(raw, "md_access=") || strings.HasPrefix(raw, "md_refresh=")) &&
			(!strings.Contains(raw, "HttpOnly") || !strings.Contains(raw, "SameSite=Strict")) {
			t.Errorf("session cookie %q is not HttpOnly and SameSite=Strict", raw)
		}
		if strings.Contains(raw, "Secure") {
			t.Errorf("cookie %q is Secure over http", raw)
		}
	}
	home := mustStatus(t, br.get("/?done=registered"), http.StatusOK)
	contains(t, home, "Account created", ">ann</a>", "Log out", `href="/log"`)

	mustStatus(t, br.post("/logout", nil), http.StatusSeeOther)
	lacks(t, mustStatus(t, br.get("/"), http.StatusOK), "Log out")

	bad := br.post("/login", url.Values{"email": {"ann@example.com"}, "password": {"wrong password"}})
	mustStatus(t, bad, http.StatusUnauthorized)
	contains(t, bad, `role="alert"`, `value="ann@example.com"`)
	ok := br.post("/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse"}, "next": {"/diary"}})
	mustStatus(t, ok, http.StatusSeeOther)
	if ok.location() != "/diary" {
		t.Errorf("Location %q, want /diary", ok.location())
	}
	contains(t, mustStatus(t, br.get("/diary"), http.StatusOK), "Log out")
}

func TestRegisterRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	p := br.post("/register", url.Values{"email": {"x@example.com"}, "username": {"x y"},
		"password": {"correct horse"}, "password2": {"correct horse"}})
	mustStatus(t, p, http.StatusBadRequest)
	contains(t, p, "Username must be", `value="x@example.com"`)
	p = br.post("/register", url.Values{"email": {"x@example.com"}, "username": {"xy"},
		"password": {"correct horse"}, "password2": {"other horse"}})
	mustStatus(t, p, http.StatusUnprocessableEntity)
	contains(t, p, "The two passwords differ")
}

func TestLoginRedirectsOnlyToLocalPaths(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("ann")
	for _, next := range []string{"//evil.example/", "https://evil.example/", `/\evil.example`} {
		p := b.browser().post("/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse"}, "next": {next}})
		mustStatus(t, p, http.StatusSeeOther)
		if p.location() != "/" {
			t.Errorf("next %q: Location %q, want /", next, p.location())
		}
	}
}

func TestMemberPagesSendVisitorsToLogIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, path := range []string{"/log", "/watchlist", "/people", "/settings", "/wrapups", "/blocked", "/admin/domains", "/admin/accounts"} {
		p := mustStatus(t, b.browser().get(path), http.StatusSeeOther)
		if want := "/login?next=" + url.QueryEscape(path); p.location() != want {
			t.Errorf("%s: Location %q, want %q", path, p.location(), want)
		}
	}
	// A form post of a visitor is refused, not redirected.
	mustStatus(t, b.browser().post("/log", url.Values{"title": {"Heat"}}), http.StatusUnauthorized)
}

func TestFormsWithoutTheCSRFTokenAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	visitor := b.browser()
	visitor.csrf()
	cases := []struct {
		name string
		br   *browser
		path string
		form url.Values
	}{
		{"login without token", visitor, "/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse"}}},
		{"login with a wrong token", visitor, "/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse"}, "csrf": {"forged"}}},
		{"register without token", visitor, "/register", url.Values{"email": {"b@example.com"}, "username": {"bob"}, "password": {"correct horse"}, "password2": {"correct horse"}}},
		{"log a review without token", ann, "/log", url.Values{"title": {"Heat"}, "year": {"1995"}, "rating": {"4"}, "watched_at": {"2024-01-01"}}},
		{"log a review with another's token", ann, "/log", url.Values{"title": {"Heat"}, "year": {"1995"}, "rating": {"4"}, "watched_at": {"2024-01-01"}, "csrf": {visitor.csrf()}}},
		{"log out without token", ann, "/logout", url.Values{}},
		{"add to watchlist without token", ann, "/watchlist/add", url.Values{"title": {"Heat"}, "year": {"1995"}}},
	}
	for _, c := range cases {
		p := c.br.postRaw(c.path, c.form)
		if p.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", c.name, p.status)
		}
		contains(t, p, "This form has expired")
	}
	if n := b.Int(`SELECT COUNT(*) FROM reviews`); n != 0 {
		t.Errorf("%d reviews written by refused forms", n)
	}
	if n := b.Int(`SELECT COUNT(*) FROM users`); n != 1 {
		t.Errorf("%d users, want 1", n)
	}
	// ann is still signed in: the refused logout did nothing.
	contains(t, mustStatus(t, ann.get("/"), http.StatusOK), "Log out")
}

func TestLogEditAndDeleteAReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	form := mustStatus(t, ann.get("/log"), http.StatusOK)
	contains(t, form, `<label for="title">`, `<label for="year">`, `<label for="watched_at">`, `<label for="medium">`,
		`<label for="comment">`, `name="rating"`, `name="csrf"`)
	moviePath := ann.logReview("Heat", "1995", 4, "Great heist.")
	mp := mustStatus(t, ann.get(moviePath+"?done=logged"), http.StatusOK)
	contains(t, mp, "<h1>Heat</h1>", "Review logged.", "Great heist.", "★★★★☆", "Cinema", "Your viewings")
	m := editLink.FindStringSubmatch(mp.body)
	if m == nil {
		t.Fatal("no edit link on the movie page")
	}
	editPath := "/review/" + m[1] + "/edit"
	edit := mustStatus(t, ann.get(editPath), http.StatusOK)
	contains(t, edit, `value="2024-03-01"`, "Great heist.", `value="4" required checked`, "<h1>Edit review: Heat</h1>")
	lacks(t, edit, `name="movie_id"`)
	// A link of the older pages, which named the movie too, still opens the form.
	contains(t, mustStatus(t, ann.get(editPath+"?movie="+newID().String()), http.StatusOK), "Great heist.")
	mustStatus(t, ann.get("/review/"+newID().String()+"/edit"), http.StatusNotFound)
	mustStatus(t, ann.get("/review/not-an-id/edit"), http.StatusNotFound)
	// Without the CSRF token an edit is refused.
	mustStatus(t, ann.postRaw(editPath, url.Values{"rating": {"1"}, "watched_at": {"2024-04-02"}}), http.StatusForbidden)

	// A refused edit shows the form again with the message.
	bad := ann.post(editPath, url.Values{"rating": {"4"}, "watched_at": {"1700-01-01"}})
	if bad.status != http.StatusBadRequest {
		t.Errorf("edit to 1700: status %d", bad.status)
	}
	contains(t, bad, `role="alert"`)
	p := ann.post(editPath, url.Values{"rating": {"2"}, "watched_at": {"2024-04-02"},
		"comment": {"Less great the second time."}, "medium": {"tv"}})
	mustStatus(t, p, http.StatusSeeOther)
	diary := mustStatus(t, ann.get("/diary?view=list"), http.StatusOK)
	contains(t, diary, "Less great the second time.", "★★☆☆☆", "TV", "2 Apr 2024")
	lacks(t, diary, "Great heist.")

	// Someone else can neither open the edit form nor delete it.
	bob := b.register("bob")
	mustStatus(t, bob.get(editPath), http.StatusNotFound)
	mustStatus(t, bob.post(editPath, url.Values{"rating": {"1"}, "watched_at": {"2024-04-02"}}), http.StatusNotFound)
	if st := bob.post("/review/"+m[1]+"/delete", nil).status; st != http.StatusForbidden && st != http.StatusNotFound {
		t.Errorf("bob deletes ann's review: status %d", st)
	}
	mustStatus(t, ann.post("/review/"+m[1]+"/delete", nil), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/diary?done=deleted"), http.StatusOK), "Review deleted.", "No reviews yet")
}

func TestLogReviewRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := ann.post("/log", url.Values{"title": {"Heat"}, "year": {"1995"}, "watched_at": {"2024-01-01"}, "comment": {"kept"}})
	mustStatus(t, p, http.StatusBadRequest)
	contains(t, p, "Choose a rating", `value="Heat"`, ">kept</textarea>")
	p = ann.post("/log", url.Values{"title": {""}, "rating": {"3"}, "watched_at": {"2024-01-01"}})
	if p.status < 400 || p.status >= 500 {
		t.Errorf("no title: status %d", p.status)
	}
	p = ann.post("/log", url.Values{"title": {"Heat"}, "year": {"1995"}, "rating": {"9"}, "watched_at": {"2024-01-01"}})
	if p.status < 400 || p.status >= 500 {
		t.Errorf("rating 9: status %d", p.status)
	}
}

func TestDiarySortsAndPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	id := b.userID("ann")
	for i := range 25 {
		m := b.AddMovie(fmt.Sprintf("tt%07d", i+1), "Movie "+string(rune('A'+i)), 2000+i)
		b.AddReview(id, m, i%5+1, time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05.000Z"), nil)
	}
	p := mustStatus(t, ann.get("/diary"), http.StatusOK)
	contains(t, p, "25 reviews", "Page 1 of 2", "Movie Y", `rel="next"`)
	lacks(t, p, "Movie A<")
	p = mustStatus(t, ann.get("/diary?sort=date_asc"), http.StatusOK)
	if strings.Index(p.body, "Movie A") > strings.Index(p.body, "Movie B") {
		t.Error("date_asc does not put the oldest first")
	}
	p = mustStatus(t, ann.get("/diary?sort=date_asc&page=2"), http.StatusOK)
	contains(t, p, "Page 2 of 2", "Movie Y", `rel="prev"`)
	// Anyone may read a user's diary.
	contains(t, mustStatus(t, b.browser().get("/diary?user="+id.String()), http.StatusOK), "Diary of ann")
	mustStatus(t, b.browser().get("/diary?user=nope"), http.StatusBadRequest)
}

func TestWatchlistAddAndRemove(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	mustStatus(t, ann.post("/watchlist/add", url.Values{"title": {"Alien"}, "year": {"1979"}}), http.StatusSeeOther)
	p := mustStatus(t, ann.get("/watchlist?done=added"), http.StatusOK)
	contains(t, p, "Added to your watchlist.", "Alien", "1979", "Remove")
	movieID := b.String(`SELECT movie_id FROM watchlist`)
	mp := mustStatus(t, ann.get("/movie/"+movieID), http.StatusOK)
	contains(t, mp, "Remove from watchlist")
	mustStatus(t, ann.post("/watchlist/remove", url.Values{"movie_id": {movieID}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/watchlist?done=removed"), http.StatusOK), "Removed from your watchlist.", "Your watchlist is empty.")
	// A reviewed movie stays: its page offers the watchlist again.
	mp = ann.get(ann.logReview("Heat", "1995", 3, ""))
	contains(t, mp, "Add to watchlist")
	heat := strings.TrimPrefix(ann.logReview("Heat", "1995", 3, ""), "/movie/")
	mustStatus(t, ann.post("/watchlist/add", url.Values{"movie_id": {heat}, "back": {"/movie/" + heat}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/movie/"+heat), http.StatusOK), "Remove from watchlist")
	p = ann.post("/watchlist/add", url.Values{"title": {""}, "year": {"1979"}})
	if p.status < 400 || p.status >= 500 {
		t.Errorf("empty title: status %d", p.status)
	}
}

func TestFollowAcceptAndUnfollow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann, bob := b.register("ann"), b.register("bob")
	bobID := b.userID("bob")
	prof := mustStatus(t, ann.get("/u/"+bobID.String()), http.StatusOK)
	contains(t, prof, "<h1>bob</h1>", "@bob@diary.test", ">Follow</button>")
	mustStatus(t, ann.post("/follow", url.Values{"handle": {"bob"}, "back": {"/u/" + bobID.String()}}), http.StatusSeeOther)
	people := mustStatus(t, bob.get("/people"), http.StatusOK)
	contains(t, people, "Follow requests", "ann", `action="/social/accept"`)
	actor := "http://diary.test/users/" + b.userID("ann").String()
	mustStatus(t, bob.post("/social/accept", url.Values{"actor_url": {actor}}), http.StatusSeeOther)
	contains(t, mustStatus(t, bob.get("/people?done=accepted"), http.StatusOK), "Follower accepted.", `action="/social/remove"`)
	contains(t, mustStatus(t, ann.get("/u/"+bobID.String()), http.StatusOK), ">Unfollow</button>", "1 follower")
	mustStatus(t, ann.post("/social/unfollow", url.Values{"actor_url": {"http://diary.test/users/" + bobID.String()}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/u/"+bobID.String()), http.StatusOK), ">Follow</button>")
	// Following oneself is the use case's refusal, shown on the page.
	p := ann.post("/follow", url.Values{"handle": {"ann"}})
	mustStatus(t, p, http.StatusBadRequest)
	contains(t, p, "Cannot follow yourself")
	mustStatus(t, ann.post("/social/nonsense", url.Values{"actor_url": {actor}}), http.StatusNotFound)
}

func TestBlockAndUnblock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	b.register("bob")
	bobURL := "http://diary.test/users/" + b.userID("bob").String()
	mustStatus(t, ann.post("/social/block", url.Values{"actor_url": {bobURL}, "back": {"/blocked"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/blocked"), http.StatusOK), "bob", "Unblock")
	mustStatus(t, ann.post("/social/unblock", url.Values{"actor_url": {bobURL}, "back": {"/blocked"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/blocked"), http.StatusOK), "You have blocked no one.")
}

func TestSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, p, `<label for="display_name">`, `<label for="avatar">`, `enctype="multipart/form-data"`,
		`name="reviews" checked`, "Media server webhooks", "Watch queue")
	mustStatus(t, ann.post("/settings/profile", url.Values{"display_name": {"Ann A."}, "bio": {"Films."}}), http.StatusSeeOther)
	mustStatus(t, ann.post("/settings/federation", url.Values{"reviews": {"on"}}), http.StatusSeeOther)
	mustStatus(t, ann.post("/settings/goals", url.Values{"year": {"2024"}, "target": {"50"}}), http.StatusSeeOther)
	p = mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, p, `value="Ann A."`, ">Films.</textarea>", `name="reviews" checked`, "2024: 0 of 50")
	lacks(t, p, `name="watchlist" checked`)
	contains(t, mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK), "<h1>Ann A.</h1>", "Films.", "2024: 0 of 50")
	bad := ann.post("/settings/profile", url.Values{"also_known_as": {"not a url"}})
	mustStatus(t, bad, http.StatusBadRequest)
}

func TestAdminBlockedDomains(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin, other := b.register("root"), b.register("ann")
	mustStatus(t, other.get("/admin/domains"), http.StatusForbidden)
	mustStatus(t, other.get("/admin/accounts"), http.StatusForbidden)
	mustStatus(t, other.post("/admin/accounts", url.Values{"invite": {"1"}}), http.StatusForbidden)
	mustStatus(t, admin.post("/admin/domains", url.Values{"host": {"spam.example"}, "reason": {"spam"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, admin.get("/admin/domains"), http.StatusOK), "spam.example", "spam", "Unblock")
	contains(t, mustStatus(t, admin.get("/"), http.StatusOK), `href="/admin/domains"`)
	lacks(t, mustStatus(t, other.get("/"), http.StatusOK), `href="/admin/domains"`)
	mustStatus(t, admin.post("/admin/domains", url.Values{"host": {"spam.example"}, "unblock": {"1"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, admin.get("/admin/domains"), http.StatusOK), "No domain is blocked.")
	mustStatus(t, admin.post("/admin/domains", url.Values{"host": {"not a host!"}}), http.StatusBadRequest)
}

func TestSearchAndPersonPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.AddMovie("tt0083658", "Blade Runner", 1982)
	person := "5b3c6c1e-7e0e-4f39-9d44-0a3f3c9b7a11"
	b.Exec(`INSERT INTO people (id, external_id, name, biography) VALUES (?, 'tmdb:3', 'Harrison Ford', 'An actor.')`, person)
	b.Exec(`INSERT INTO movie_credits (movie_id, person_id, kind, role, billing_order) VALUES (?, ?, 'cast', 'Deckard', 0)`, m.String(), person)
	reindex(t, b)
	p := mustStatus(t, b.browser().get("/search?q=blade"), http.StatusOK)
	contains(t, p, `role="search"`, `<label for="q">`, "Blade Runner", `href="/movie/`+m.String()+`"`)
	contains(t, mustStatus(t, b.browser().get("/search?q=harrison"), http.StatusOK), "Harrison Ford")
	pp := mustStatus(t, b.browser().get("/person/"+person), http.StatusOK)
	contains(t, pp, "<h1>Harrison Ford</h1>", "An actor.", "Blade Runner", "as Deckard")
	mustStatus(t, b.browser().get("/person/"+m.String()), http.StatusNotFound)
	mustStatus(t, b.browser().get("/movie/not-a-uuid"), http.StatusNotFound)
	// The log form searches the same index.
	ann := b.register("ann")
	contains(t, mustStatus(t, ann.get("/log?q=blade"), http.StatusOK), `name="movie_id" value="`+m.String()+`"`)
	mustStatus(t, ann.post("/log", url.Values{"movie_id": {m.String()}, "rating": {"5"}, "watched_at": {"2024-01-01"}}), http.StatusSeeOther)
	if n := b.Int(`SELECT COUNT(*) FROM reviews WHERE movie_id = ?`, m.String()); n != 1 {
		t.Errorf("%d reviews of the chosen movie", n)
	}
}

func TestWrapUpPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.register("root")
	ann := b.register("ann")
	ann.logReview("Heat", "1995", 4, "")
	contains(t, mustStatus(t, ann.get("/wrapups"), http.StatusOK), "No wrap-up yet.")
	lacks(t, mustStatus(t, ann.get("/wrapups"), http.StatusOK), `action="/wrapups"`)
	mustStatus(t, ann.post("/wrapups", url.Values{"year": {"2024"}}), http.StatusForbidden)
	mustStatus(t, admin.post("/wrapups", url.Values{"year": {"2024"}, "user": {"nobody"}}), http.StatusNotFound)
	mustStatus(t, admin.post("/wrapups", url.Values{"year": {"2024"}, "user": {"ann"}}), http.StatusSeeOther)
	id := b.String(`SELECT id FROM wrapups`)
	p := mustStatus(t, ann.get("/wrapups"), http.StatusOK)
	contains(t, p, `href="/u/`+b.userID("ann").String()+`/wrapup/2024"`, "Pending")
	contains(t, mustStatus(t, ann.get("/wrapups/"+id), http.StatusOK), "still building")
	generate(t, b, id)
	p = mustStatus(t, ann.get("/wrapups/"+id), http.StatusOK)
	contains(t, p, "Ready", "<strong>1</strong> movies", "cinema (1)", "★★★★☆</td><td>1<", `<meter min="0" max="1" value="1">`)
	// Another user's wrap-up does not exist for the caller.
	mustStatus(t, b.register("carl").get("/wrapups/"+id), http.StatusNotFound)
}

func TestEscapesHostileReviewTextAndRemoteContent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	mp := ann.logReview(`Heat</title><script>x()</script>`, "1995", 4, hostile)
	mustStatus(t, ann.post("/settings/profile", url.Values{"display_name": {`<b onmouseover=alert(3)>Ann</b>`}}), http.StatusSeeOther)
	comment := hostile + " remote"
	poster := "javascript:alert(4)"
	err := b.Store.SaveRemoteReview(ctx, domain.RemoteReview{
		ID: newID(), APID: "https://remote.example/notes/1", ActorURL: "https://remote.example/users/eve", UserID: newID(),
		Movie:  domain.Movie{ID: newID(), Title: `<iframe src="https://evil.example">`, ReleaseYear: 2001, PosterPath: &poster},
		Rating: 3, Comment: &comment, WatchedAt: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), Published: time.Now().UTC(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/diary", mp, "/u/" + b.userID("ann").String()} {
		p := mustStatus(t, ann.get(path), http.StatusOK)
		lacks(t, p, "<script>", "<img src=x", "<b onmouseover", "<iframe", "javascript:")
		if path == "/" {
			contains(t, p, "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;iframe")
		}
	}
}

func TestSessionSurvivesAnExpiredAccessToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	u, _ := url.Parse(b.srv.URL)
	// The access token is gone (expired, or garbage): the refresh cookie renews the session.
	var kept []*http.Cookie
	for _, c := range ann.client.Jar.Cookies(u) {
		if c.Name == "md_access" {
			c.Value = "expired.token.value"
		}
		kept = append(kept, c)
	}
	ann.client.Jar.SetCookies(u, kept)
	p := mustStatus(t, ann.get("/"), http.StatusOK)
	contains(t, p, "Log out")
	renewed := false
	for _, raw := range p.header.Values("Set-Cookie") {
		renewed = renewed || strings.HasPrefix(raw, "md_refresh=")
	}
	if !renewed {
		t.Error("the refresh token was not rotated")
	}
	contains(t, mustStatus(t, ann.get("/diary"), http.StatusOK), "Log out")
	// After logout the old refresh token no longer signs anyone in.
	mustStatus(t, ann.post("/logout", nil), http.StatusSeeOther)
	lacks(t, mustStatus(t, ann.get("/"), http.StatusOK), "Log out")
}

func TestCookiesAreSecureOverHTTPS(t *testing.T) {
	t.Parallel()
	b := setup(t, options{baseURL: "https://diary.test"})
	p := b.browser().get("/login")
	raws := p.header.Values("Set-Cookie")
	if len(raws) == 0 {
		t.Fatal("no cookie")
	}
	for _, raw := range raws {
		if !strings.HasPrefix(raw, "__Host-") || !strings.Contains(raw, "Secure") || !strings.Contains(raw, "Path=/") {
			t.Errorf("cookie %q is not a Secure __Host- cookie", raw)
		}
	}
	if p.header.Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS over https")
	}
}

func TestActorURLNegotiates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("ann")
	path := "/users/" + b.userID("ann").String()
	p := mustStatus(t, b.browser().get(path, "Accept", "text/html,application/xhtml+xml"), http.StatusOK)
	contains(t, p, "<h1>ann</h1>", "@ann@diary.test")
	ap := mustStatus(t, b.browser().get(path, "Accept", "application/activity+json"), http.StatusOK)
	var doc map[string]any
	if err := json.Unmarshal([]byte(ap.body), &doc); err != nil || doc["type"] != "Person" {
		t.Errorf("ActivityPub actor: %v %v", err, excerpt(ap.body))
	}
	// Without the federation routes the pages serve the actor URL themselves.
	nb := setup(t, options{noFederation: true})
	nb.register("bob")
	contains(t, mustStatus(t, nb.browser().get("/users/"+nb.userID("bob").String()), http.StatusOK), "<h1>bob</h1>")
}

func TestRootToClientLeavesRootToTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, options{rootToClient: true})
	p := b.browser().get("/")
	if strings.Contains(p.body, "<!doctype html>") && strings.Contains(p.body, "Latest reviews") {
		t.Error("the web home page answered / with RootToClient")
	}
	mustStatus(t, b.browser().get("/login"), http.StatusOK)
	// The API is behind the pages, untouched.
	api := mustStatus(t, b.browser().get("/api/v1/activity-feed"), http.StatusOK)
	if !strings.HasPrefix(api.header.Get("Content-Type"), "application/json") {
		t.Errorf("API Content-Type %q", api.header.Get("Content-Type"))
	}
}

func TestLogInIsLimitedPerIP(t *testing.T) {
	t.Parallel()
	b := setup(t, options{authRateLimit: 3})
	br := b.browser()
	form := url.Values{"email": {"nobody@example.com"}, "password": {"wrong password"}}
	for i := range 3 {
		if st := br.post("/login", form).status; st != http.StatusUnauthorized {
			t.Fatalf("attempt %d: status %d, want 401", i+1, st)
		}
	}
	p := mustStatus(t, br.post("/login", form), http.StatusTooManyRequests)
	contains(t, p, "Too many attempts")
	if p.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

func TestEscapesRemoteActors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	annID := b.userID("ann")
	hostile := `https://remote.example/users/"><script>alert(1)</script>`
	if err := b.Store.AddRemoteFollower(ctx, annID, hostile, "https://remote.example/follows/1",
		"http://diary.test/users/"+annID.String()); err != nil {
		t.Fatal(err)
	}
	p := mustStatus(t, ann.get("/people"), http.StatusOK)
	lacks(t, p, "<script>")
	contains(t, p, "&lt;script&gt;", "remote")
	// Accepting it posts the URL back as it was.
	mustStatus(t, ann.post("/social/accept", url.Values{"actor_url": {hostile}}), http.StatusSeeOther)
}

func TestAvatarUpload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	upload := func(data []byte, csrf string) page {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("csrf", csrf)
		_ = mw.WriteField("display_name", "Ann")
		fw, _ := mw.CreateFormFile("avatar", "me.png")
		_, _ = fw.Write(data)
		_ = mw.Close()
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/settings/profile", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		return ann.do(req)
	}
	mustStatus(t, upload(img.Bytes(), "forged"), http.StatusForbidden)
	if key := b.String(`SELECT avatar_key FROM users WHERE username = 'ann'`); key != "" {
		t.Fatalf("a refused form stored avatar %q", key)
	}
	bad := upload([]byte("not an image"), ann.csrf())
	if bad.status < 400 || bad.status >= 500 {
		t.Errorf("not an image: status %d", bad.status)
	}
	// A 57-byte PNG claiming 20,000 × 20,000 pixels is refused from its header, the limit named.
	var bomb bytes.Buffer
	if err := png.Encode(&bomb, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	hdr := bomb.Bytes()
	binary.BigEndian.PutUint32(hdr[16:], 20_000)
	binary.BigEndian.PutUint32(hdr[20:], 20_000)
	binary.BigEndian.PutUint32(hdr[29:], crc32.ChecksumIEEE(hdr[12:29]))
	huge := upload(hdr, ann.csrf())
	if huge.status != http.StatusBadRequest {
		t.Errorf("pixel bomb: status %d, want 400", huge.status)
	}
	contains(t, huge, "20000×20000 pixels; at most 12000 on a side and 40 megapixels")
	if key := b.String(`SELECT avatar_key FROM users WHERE username = 'ann'`); key != "" {
		t.Fatalf("a refused upload stored avatar %q", key)
	}
	mustStatus(t, upload(img.Bytes(), ann.csrf()), http.StatusSeeOther)
	p := mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK)
	contains(t, p, `class="avatar" src="/images/avatars/`, `.w192.webp"`, `loading="lazy"`)
}

func TestLogInRenewsTheCSRFToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.register("ann")
	br := b.browser()
	before := br.csrf()
	mustStatus(t, br.post("/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse"}}), http.StatusSeeOther)
	after := br.csrf()
	if after == before {
		t.Error("the CSRF token survived the log-in")
	}
	// The old token no longer works; the new one does.
	mustStatus(t, br.post("/watchlist/add", url.Values{"title": {"Alien"}, "year": {"1979"}, "csrf": {before}}), http.StatusForbidden)
	mustStatus(t, br.post("/watchlist/add", url.Values{"title": {"Alien"}, "year": {"1979"}}), http.StatusSeeOther)
}

func TestPagesOpenedTogetherShareOneRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	u, _ := url.Parse(b.srv.URL)
	var refresh string
	for _, c := range ann.client.Jar.Cookies(u) {
		if c.Name == "md_refresh" {
			refresh = c.Value
		}
	}
	// Two tabs restored at once: the access token has expired, both present the same refresh
	// token. Neither may end the session.
	open := func() page {
		req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/diary", nil)
		req.AddCookie(&http.Cookie{Name: "md_access", Value: "expired"})
		req.AddCookie(&http.Cookie{Name: "md_refresh", Value: refresh})
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Error(err)
			return page{}
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
	}
	pages := make(chan page, 2)
	for range 2 {
		go func() { pages <- open() }()
	}
	var rotated []string
	for range 2 {
		p := <-pages
		contains(t, p, "Log out")
		for _, c := range (&http.Response{Header: p.header}).Cookies() {
			if c.Name == "md_refresh" {
				rotated = append(rotated, c.Value)
			}
		}
	}
	if len(rotated) != 2 || rotated[0] != rotated[1] || rotated[0] == refresh {
		t.Fatalf("rotated refresh tokens %v", rotated)
	}
	// The rotated token still signs in: the family was not revoked.
	refresh = rotated[0]
	contains(t, open(), "Log out")
}

func TestBrowsersGetHTMLErrorPagesAndAPIClientsJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	p := mustStatus(t, ann.get("/no/such/<page>", "Accept", browserAccept), http.StatusNotFound)
	if ct := p.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	contains(t, p, "<!doctype html>", "There is no page here", "Log out", `href="/"`)
	lacks(t, p, "<page>")
	if p.header.Get("Content-Security-Policy") == "" {
		t.Error("no Content-Security-Policy on the 404 page")
	}
	mustStatus(t, b.browser().get("/api/v1/nothing", "Accept", browserAccept), http.StatusNotFound)

	// A page's path with another method, and an API route's, are 405 pages.
	req, _ := http.NewRequest(http.MethodDelete, b.srv.URL+"/settings", nil)
	req.Header.Set("Accept", browserAccept)
	contains(t, mustStatus(t, ann.do(req), http.StatusMethodNotAllowed), "<!doctype html>", "cannot be used that way")
	contains(t, mustStatus(t, ann.get("/logout", "Accept", browserAccept), http.StatusMethodNotAllowed), "<!doctype html>")

	// API clients keep the JSON answers, and the API's own routes answer browsers as before.
	for _, accept := range []string{"", "application/json", "*/*", "application/json, text/html;q=0.5"} {
		p := mustStatus(t, b.browser().get("/no/such/page", "Accept", accept), http.StatusNotFound)
		if !strings.HasPrefix(p.header.Get("Content-Type"), "application/json") || strings.Contains(p.body, "<html") {
			t.Errorf("Accept %q: %q %q", accept, p.header.Get("Content-Type"), p.body)
		}
	}
	req, _ = http.NewRequest(http.MethodDelete, b.srv.URL+"/settings", nil)
	if p := mustStatus(t, ann.do(req), http.StatusMethodNotAllowed); strings.Contains(p.body, "<html") {
		t.Errorf("an API client's 405: %q", p.body)
	}
	if p := mustStatus(t, b.browser().get("/health", "Accept", browserAccept), http.StatusOK); strings.Contains(p.body, "<html") {
		t.Errorf("/health for a browser: %q", p.body)
	}
	p = b.browser().get("/api/v1/movies/00000000-0000-0000-0000-000000000000", "Accept", browserAccept)
	if p.status < 400 || !strings.HasPrefix(p.header.Get("Content-Type"), "application/json") {
		t.Errorf("a routed API refusal for a browser became %d %q", p.status, p.header.Get("Content-Type"))
	}
}

// TestDiaryEditLinkSitsInItsEntry: in the diary's list, each review's Edit link is inside that
// review's entry, above the separator, not under it beside the next review.
func TestDiaryEditLinkSitsInItsEntry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	ann.logReview("Heat", "1995", 4, "")
	ann.logReview("Alien", "1979", 5, "")
	p := mustStatus(t, ann.get("/diary?view=list"), http.StatusOK)
	entries := strings.Split(p.body, `<article class="entry">`)[1:]
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2:\n%s", len(entries), excerpt(p.body))
	}
	for _, e := range entries {
		inside, _, _ := strings.Cut(e, "</article>")
		title := regexp.MustCompile(`<h2 class="title"><a href="/movie/[0-9a-f-]{36}">([^<]+)</a>`).FindStringSubmatch(inside)
		if title == nil {
			t.Fatalf("an entry without its title:\n%s", e)
		}
		if !strings.Contains(inside, `Edit<span class="sr"> `+title[1]+`</span></a>`) {
			t.Errorf("%s's Edit link is not inside its entry:\n%s", title[1], e)
		}
	}
}

// TestCountsAgreeWithTheirNumber: one review is "1 review", not "1 reviews", on the diary, the
// film's page, the profile and the watchlist; two are plural.
func TestCountsAgreeWithTheirNumber(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	ann.logReview("Heat", "1995", 4, "")
	contains(t, mustStatus(t, ann.get("/diary?view=list"), http.StatusOK), ">1 review<")
	contains(t, mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK), "1 movie ·", "0 followers")
	contains(t, mustStatus(t, ann.get("/watchlist?view=list"), http.StatusOK), "0 movies")
	ann.logReview("Alien", "1979", 5, "")
	contains(t, mustStatus(t, ann.get("/diary?view=list"), http.StatusOK), ">2 reviews<")
}
