package httpapi_test

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

type rssDoc struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Channel struct {
		Title       string `xml:"title"`
		Link        string `xml:"link"`
		Description string `xml:"description"`
		Items       []struct {
			Title       string `xml:"title"`
			Link        string `xml:"link"`
			Description string `xml:"description"`
			PubDate     string `xml:"pubDate"`
			GUID        struct {
				ID          string `xml:",chardata"`
				IsPermaLink string `xml:"isPermaLink,attr"`
			} `xml:"guid"`
		} `xml:"item"`
	} `xml:"channel"`
}

type atomDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string   `xml:"title"`
	ID      string   `xml:"id"`
	Updated string   `xml:"updated"`
	Entries []struct {
		Title   string `xml:"title"`
		ID      string `xml:"id"`
		Updated string `xml:"updated"`
		Link    struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Summary string `xml:"summary"`
	} `xml:"entry"`
}

func TestFeeds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	heatReview, heat := b.logReview(alice, "Heat", 4, "2024-01-02")
	b.must(200, req{method: "PATCH", path: "/api/v1/reviews/" + heatReview.String(), token: alice.token,
		body: map[string]any{"comment": "Pacino <3 & De Niro\nthe diner scene"}})
	roninReview, _ := b.logReview(bob, "Ronin", 3, "2024-02-01")
	b.execSQL(`UPDATE reviews SET created_at = '2024-03-01T10:00:00.000Z', updated_at = '2024-03-02T11:00:00.000Z' WHERE id = ?`, heatReview.String())
	b.execSQL(`UPDATE reviews SET created_at = '2024-03-05T10:00:00.000Z', updated_at = '2024-03-05T10:00:00.000Z' WHERE id = ?`, roninReview.String())
	// A remote review is not this instance's to syndicate.
	remote := uuid.New()
	b.execSQL(`INSERT INTO reviews (id, user_id, movie_id, rating, watched_at, remote_actor_url, created_at)
		VALUES (?, ?, ?, 5, '2024-01-01T00:00:00.000Z', 'https://elsewhere.test/users/x', '2025-01-01T00:00:00.000Z')`,
		remote.String(), uuid.New().String(), heat.String())

	r := b.must(200, req{method: "GET", path: "/feed.rss"})
	if ct := r.header.Get("Content-Type"); ct != "application/rss+xml; charset=utf-8" {
		t.Errorf("RSS Content-Type = %q", ct)
	}
	var rss rssDoc
	if err := xml.Unmarshal(r.body, &rss); err != nil {
		t.Fatalf("RSS: %v\n%s", err, r.body)
	}
	items := rss.Channel.Items
	if rss.Version != "2.0" || len(items) != 2 || rss.Channel.Link != "http://diary.test/" {
		t.Fatalf("RSS = %+v", rss)
	}
	// Newest logged first; guid is the review's ActivityPub id; RFC 1123 dates.
	if items[0].GUID.ID != "http://diary.test/reviews/"+roninReview.String() || items[0].GUID.IsPermaLink != "false" ||
		items[0].Title != "bob rated Ronin (1999) ★★★☆☆" || items[0].PubDate != "Tue, 05 Mar 2024 10:00:00 +0000" {
		t.Errorf("first item = %+v", items[0])
	}
	if items[1].Link != "http://diary.test/movie/"+heat.String() || items[1].PubDate != "Fri, 01 Mar 2024 10:00:00 +0000" ||
		items[1].Description != "<p>4/5</p><p>Pacino &lt;3 &amp; De Niro<br>the diner scene</p><p>Watched Jan 2, 2024</p>" {
		t.Errorf("second item = %+v", items[1])
	}

	r = b.must(200, req{method: "GET", path: "/users/" + alice.id.String() + "/feed.atom"})
	if ct := r.header.Get("Content-Type"); ct != "application/atom+xml; charset=utf-8" {
		t.Errorf("Atom Content-Type = %q", ct)
	}
	var atom atomDoc
	if err := xml.Unmarshal(r.body, &atom); err != nil {
		t.Fatalf("Atom: %v\n%s", err, r.body)
	}
	if len(atom.Entries) != 1 || atom.Title != "alice's reviews on moviesdiary" ||
		atom.Entries[0].ID != "http://diary.test/reviews/"+heatReview.String() || atom.Entries[0].Updated != "2024-03-02T11:00:00Z" ||
		atom.Updated != "2024-03-02T11:00:00Z" || atom.ID != "http://diary.test/u/"+alice.id.String() {
		t.Errorf("alice's Atom feed = %+v", atom)
	}
	r = b.must(200, req{method: "GET", path: "/users/" + bob.id.String() + "/feed.rss"})
	rss = rssDoc{}
	if err := xml.Unmarshal(r.body, &rss); err != nil || len(rss.Channel.Items) != 1 || !strings.Contains(rss.Channel.Items[0].Title, "Ronin") {
		t.Errorf("bob's RSS feed = %+v (%v)", rss, err)
	}
	atom = atomDoc{}
	if err := xml.Unmarshal(b.must(200, req{method: "GET", path: "/feed.atom"}).body, &atom); err != nil || len(atom.Entries) != 2 {
		t.Errorf("instance Atom = %+v (%v)", atom, err)
	}
	b.must(400, req{method: "GET", path: "/users/nope/feed.rss"}).errorMessage(t)
	b.must(404, req{method: "GET", path: "/users/" + uuid.NewString() + "/feed.atom"}).errorMessage(t)
}

func TestEmptyFeedsAreValid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	var atom atomDoc
	if err := xml.Unmarshal(b.must(200, req{method: "GET", path: "/feed.atom"}).body, &atom); err != nil || len(atom.Entries) != 0 {
		t.Fatalf("empty Atom = %+v, %v", atom, err)
	}
	if _, err := time.Parse(time.RFC3339, atom.Updated); err != nil {
		t.Errorf("empty Atom updated = %q: %v", atom.Updated, err)
	}
	var rss rssDoc
	if err := xml.Unmarshal(b.must(200, req{method: "GET", path: "/users/" + a.id.String() + "/feed.rss"}).body, &rss); err != nil {
		t.Fatal(err)
	}
}

// TestFeedDiscovery: the pages this server has announce the feeds.
func TestFeedDiscovery(t *testing.T) {
	t.Parallel()
	b := setup(t, options{webClientDir: clientDir(t)})
	id := uuid.NewString()
	links := strings.Join(b.must(200, req{method: "GET", path: "/app/users/" + id}).header.Values("Link"), "\n")
	for _, want := range []string{`<http://diary.test/feed.rss>; rel="alternate"; type="application/rss+xml"`,
		`<http://diary.test/users/` + id + `/feed.atom>; rel="alternate"; type="application/atom+xml"`} {
		if !strings.Contains(links, want) {
			t.Errorf("Link headers lack %s:\n%s", want, links)
		}
	}
	page := b.must(200, req{method: "GET", path: "/app/users/" + id})
	for _, want := range []string{
		`<link rel="alternate" type="application/rss+xml" title="Recent reviews" href="http://diary.test/feed.rss">`,
		`<link rel="alternate" type="application/atom+xml" title="This user&#39;s reviews" href="http://diary.test/users/` + id + `/feed.atom">`,
	} {
		if !strings.Contains(string(page.body), want) {
			t.Errorf("the user page lacks %s:\n%s", want, page.body)
		}
	}
	if i, j := strings.Index(string(page.body), "<link rel"), strings.Index(string(page.body), "</HEAD>"); i < 0 || i > j {
		t.Errorf("the links are not inside <head>: %s", page.body)
	}
	diary := b.must(200, req{method: "GET", path: "/app/diary"})
	if links := diary.header.Values("Link"); len(links) != 2 || strings.Count(string(diary.body), "<link rel") != 2 {
		t.Errorf("a non-user page's links = %v / %s, want the instance feeds", links, diary.body)
	}
}
