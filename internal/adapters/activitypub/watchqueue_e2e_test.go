package activitypub_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"testing"
)

// TestWebhookToConfirmedReviewToFederation runs a media-server watch all the way: Plex's
// multipart scrobble reaches the instance's webhook, the watch waits in alice's queue, alice
// confirms it with a rating, and the review it logs goes out as a Create(Note) to her remote
// follower's inbox through the outbox and the worker's federation handlers.
func TestWebhookToConfirmedReviewToFederation(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice, token := a.register("alice")
	r := newRemote(t)
	a.acceptRemoteFollower(alice, r.addUser("bob"))
	a.startWorker()
	t.Cleanup(func() {
		if t.Failed() {
			a.dump()
		}
	})
	eventually(t, "the follow settles", a.settled)

	var tok struct {
		Token      string `json:"token"`
		WebhookURL string `json:"webhook_url"`
	}
	if err := json.Unmarshal(a.must(200, "POST", "/api/v1/settings/webhook-tokens", token, map[string]string{"provider": "plex"}), &tok); err != nil {
		t.Fatal(err)
	}
	payload, err := os.ReadFile(filepath.Join("..", "..", "usecase", "integration", "testdata", "plex-movie-scrobble.json"))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="payload"`)
	h.Set("Content-Type", "application/json")
	pw, _ := mw.CreatePart(h)
	pw.Write(payload)
	h = textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="thumb"; filename="image.jpg"`)
	h.Set("Content-Type", "image/jpeg")
	tw, _ := mw.CreatePart(h)
	tw.Write([]byte{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10})
	mw.Close()
	resp, err := http.Post(tok.WebhookURL+"?token="+tok.Token, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Plex webhook = %d, want 200", resp.StatusCode)
	}

	var queue []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(a.must(200, "GET", "/api/v1/watch-queue", token, nil), &queue); err != nil {
		t.Fatal(err)
	}
	if len(queue) != 1 || queue[0].Title != "Heat" {
		t.Fatalf("queue = %+v, want Heat", queue)
	}
	a.must(200, "POST", "/api/v1/watch-queue/confirm", token, map[string]any{
		"confirmations": []map[string]any{{"watch_event_id": queue[0].ID, "rating": 5, "comment": "the diner scene"}},
	})

	eventually(t, "the review's Create reaches bob's server", func() bool {
		return len(r.postsOf("Create")) == 1 && a.settled()
	})
	var reviewID string
	if err := a.db.QueryRow(`SELECT id FROM reviews WHERE watch_medium = 'media_server'`).Scan(&reviewID); err != nil {
		t.Fatalf("no media_server review: %v", err)
	}
	note, _ := r.postsOf("Create")[0].Activity["object"].(map[string]any)
	if note["id"] != a.base+"/reviews/"+reviewID || note["rating"] != float64(5) || note["movieTitle"] != "Heat" ||
		note["externalMetadataId"] != "tmdb:949" || note["comment"] != "the diner scene" {
		t.Errorf("Note = %v, want review %s of Heat (tmdb:949) rated 5", note, reviewID)
	}
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested' AND status = 'done'
		AND id > (SELECT id FROM event_queue WHERE event_type = 'ReviewLogged')`); n != 1 {
		t.Errorf("done deliveries of the review = %d, want 1", n)
	}
}
