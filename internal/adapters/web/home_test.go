package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// TestFollowingTab: the home page's following tab lists the reviews of the people the viewer
// follows once they accepted (a local user's and a followed remote actor's), newest viewing
// first, paged, escaped; nobody else's; a visitor gets the instance feed.
func TestFollowingTab(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann, bob, carl := b.register("ann"), b.register("bob"), b.register("carl")
	const hostile = `<script>alert(1)</script>`
	bob.logReview("Heat", "1995", 4, "Bob on Heat "+hostile)
	carl.logReview("Alien", "1979", 5, "Carl on Alien")
	ann.logReview("Ran", "1985", 5, "Ann on Ran")

	p := mustStatus(t, ann.get("/?tab=following"), http.StatusOK)
	contains(t, p, "<h1>Following</h1>", `href="/?tab=following" aria-current="page"`, "No reviews from the people you follow yet")
	mustStatus(t, ann.post("/follow", url.Values{"handle": {"bob"}}), http.StatusSeeOther)
	// A pending follow brings nothing.
	contains(t, mustStatus(t, ann.get("/?tab=following"), http.StatusOK), "No reviews from the people you follow yet")
	mustStatus(t, bob.post("/social/accept", url.Values{"actor_url": {"http://diary.test/users/" + b.userID("ann").String()}}),
		http.StatusSeeOther)

	// A remote actor ann follows, and one she does not.
	actor := "https://remote.example/users/eve"
	b.Exec(`INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status) VALUES ('local', ?, 'remote', ?, 'accepted')`,
		b.userID("ann").String(), actor)
	for i, a := range []string{actor, "https://remote.example/users/mallory"} {
		comment := fmt.Sprintf("remote %d <iframe>", i)
		if err := b.Store.SaveRemoteReview(ctx, domain.RemoteReview{ID: newID(), APID: fmt.Sprint(a, "/notes/1"), ActorURL: a,
			UserID: newID(), Movie: domain.Movie{ID: newID(), Title: fmt.Sprint("Remote movie ", i), ReleaseYear: 2001},
			Rating: 3, Comment: &comment, WatchedAt: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), Published: time.Now().UTC(),
		}); err != nil {
			t.Fatal(err)
		}
	}
	p = mustStatus(t, ann.get("/?tab=following"), http.StatusOK)
	contains(t, p, "Bob on Heat", "&lt;script&gt;alert(1)&lt;/script&gt;", "remote 0 &lt;iframe&gt;", "federated",
		`href="/u/`+b.userID("bob").String()+`"`)
	lacks(t, p, "Carl on Alien", "Ann on Ran", "remote 1", "<script>alert", "<iframe>")
	// Newest viewing first: bob's (2024-03-01) before the remote one (2024-02-01).
	if i, j := strings.Index(p.body, "Bob on Heat"), strings.Index(p.body, "remote 0"); i > j {
		t.Errorf("bob's review at %d after the remote one at %d", i, j)
	}

	// Paged: 25 reviews of bob make two pages.
	movie := b.AddMovie("tt0000001", "Paged", 2000)
	for i := range 24 {
		b.AddReview(b.userID("bob"), movie, 3, fmt.Sprintf("2023-01-%02dT00:00:00Z", i+1), nil)
	}
	p = mustStatus(t, ann.get("/?tab=following"), http.StatusOK)
	contains(t, p, "Page 1 of 2", `href="/?page=2&amp;tab=following"`)
	p = mustStatus(t, ann.get("/?tab=following&page=2"), http.StatusOK)
	contains(t, p, "Page 2 of 2", "Paged")
	lacks(t, p, "Bob on Heat")

	// A visitor asking for the tab gets the instance feed, which has everyone's.
	p = mustStatus(t, b.browser().get("/?tab=following"), http.StatusOK)
	contains(t, p, "Latest reviews", "Carl on Alien")
	lacks(t, p, `aria-current="page">Following`)

	// Unfollowed, bob's reviews leave the tab.
	mustStatus(t, ann.post("/social/unfollow", url.Values{"actor_url": {"http://diary.test/users/" + b.userID("bob").String()}}),
		http.StatusSeeOther)
	p = mustStatus(t, ann.get("/?tab=following"), http.StatusOK)
	contains(t, p, "remote 0")
	lacks(t, p, "Bob on Heat", "Paged")
}
