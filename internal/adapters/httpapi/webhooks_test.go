package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// webhookFixture reads a media-server payload written from the provider's documented format.
func webhookFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "usecase", "integration", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// webhookToken is a token as POST /settings/webhook-tokens answers it.
type webhookToken struct {
	ID         uuid.UUID `json:"id"`
	Token      string    `json:"token"`
	WebhookURL string    `json:"webhook_url"`
}

func (b *bundle) webhookToken(a account, body map[string]any) webhookToken {
	b.t.Helper()
	var tok webhookToken
	b.must(200, req{method: "POST", path: "/api/v1/settings/webhook-tokens", token: a.token, body: body}).json(b.t, &tok)
	return tok
}

// jellyfin posts a Jellyfin plugin fixture with the token as a bearer header.
func (b *bundle) jellyfin(token, fixture string) response {
	b.t.Helper()
	return b.do(req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: token, body: webhookFixture(b.t, fixture)})
}

// plexBody is a Plex webhook request body as Plex sends it: multipart/form-data with the JSON in
// a "payload" part and, when thumb is set, the poster in a "thumb" part after it.
func plexBody(t testing.TB, payload []byte, thumb bool) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="payload"`)
	h.Set("Content-Type", "application/json")
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	pw.Write(payload)
	if thumb {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="thumb"; filename="image.jpg"`)
		h.Set("Content-Type", "image/jpeg")
		tw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		// A JPEG's start-of-image marker, then bytes no JSON parser would accept.
		tw.Write(append([]byte{0xff, 0xd8, 0xff, 0xe0}, bytes.Repeat([]byte{0x00, 0xfe}, 4096)...))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// plex posts a Plex fixture with the token in ?token=, as Plex's webhook settings allow only a URL.
func (b *bundle) plex(token, fixture string, thumb bool) response {
	b.t.Helper()
	body, ct := plexBody(b.t, webhookFixture(b.t, fixture), thumb)
	return b.do(req{method: "POST", path: "/api/v1/webhooks/plex?token=" + token, body: body,
		header: map[string]string{"Content-Type": ct}})
}

// queueEntry is one GET /watch-queue item.
type queueEntry struct {
	ID        uuid.UUID  `json:"id"`
	Title     string     `json:"title"`
	Year      *int       `json:"year"`
	MovieID   *uuid.UUID `json:"movie_id"`
	Source    string     `json:"source"`
	WatchedAt string     `json:"watched_at"`
}

func (b *bundle) queue(a account) []queueEntry {
	b.t.Helper()
	var q []queueEntry
	b.must(200, req{method: "GET", path: "/api/v1/watch-queue", token: a.token}).json(b.t, &q)
	return q
}

// accepted fails the test unless a webhook was answered 200.
func (b *bundle) accepted(resp response) {
	b.t.Helper()
	if resp.status != 200 {
		b.t.Fatalf("webhook = %d %s, want 200", resp.status, resp.body)
	}
}

var naiveTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`)

// TestJellyfinWebhookQueuesAFinishedMovie: the plugin's "Send All Properties" body for a movie
// played to completion lands in the token owner's queue, with WatchEventIngested, and the
// answer is the original's 200 with an empty body.
func TestJellyfinWebhookQueuesAFinishedMovie(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	tok := b.webhookToken(alice, map[string]any{"provider": "jellyfin", "label": "living room"})
	if tok.WebhookURL != "http://diary.test/api/v1/webhooks/jellyfin" || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok.Token) {
		t.Fatalf("token answer %+v: want 64 hex characters and the jellyfin webhook URL", tok)
	}
	since := b.lastEvent()
	resp := b.jellyfin(tok.Token, "jellyfin-movie-stop.json")
	if resp.status != 200 || len(resp.body) != 0 {
		t.Fatalf("webhook = %d %q, want 200 with an empty body", resp.status, resp.body)
	}
	q := b.queue(alice)
	if len(q) != 1 || q[0].Title != "Heat" || q[0].Year == nil || *q[0].Year != 1995 || q[0].Source != "jellyfin" ||
		q[0].MovieID != nil || !naiveTime.MatchString(q[0].WatchedAt) {
		t.Fatalf("alice's queue = %+v, want Heat (1995) from jellyfin at a naive time", q)
	}
	if got := b.scalar(`SELECT external_id FROM watch_events`); got != "tmdb:949" {
		t.Errorf("external id = %q, want tmdb:949 (preferred over the IMDb id)", got)
	}
	if got := b.eventTypes(since); len(got) != 1 || got[0] != "WatchEventIngested" {
		t.Errorf("events = %v, want [WatchEventIngested]", got)
	}
	if got := b.scalar(`SELECT payload FROM event_queue WHERE event_type = 'WatchEventIngested'`); !strings.Contains(got,
		`"user_id":"`+alice.id.String()+`"`) || !strings.Contains(got, `"source":"jellyfin"`) {
		t.Errorf("WatchEventIngested payload = %s", got)
	}
	if q := b.queue(bob); len(q) != 0 {
		t.Errorf("bob's queue = %+v, want it empty", q)
	}
	// Only the token's SHA-256 is stored, and its use is recorded.
	sum := sha256.Sum256([]byte(tok.Token))
	if got := b.scalar(`SELECT token_hash FROM webhook_tokens`); got != hex.EncodeToString(sum[:]) {
		t.Errorf("stored token_hash = %q, want the SHA-256 hex of the token", got)
	}
	var listed []map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/settings/webhook-tokens", token: alice.token}).json(t, &listed)
	if len(listed) != 1 || listed[0]["provider"] != "jellyfin" || listed[0]["label"] != "living room" ||
		!naiveTime.MatchString(listed[0]["created_at"].(string)) || listed[0]["last_used_at"] == nil {
		t.Errorf("tokens = %v, want the jellyfin token with created_at and last_used_at", listed)
	}
	if _, leaked := listed[0]["token"]; leaked {
		t.Error("GET webhook-tokens shows the token")
	}
}

// TestPlexWebhookQueuesAScrobble: Plex's multipart body (payload, then a thumbnail), the token in
// ?token=; the Guid array's tmdb:// id names the movie, and a movie already stored is linked.
func TestPlexWebhookQueuesAScrobble(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	var logged struct {
		Movie struct{ ID uuid.UUID } `json:"movie"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"external_metadata_id": "tmdb:949", "manual_title": "Heat", "manual_release_year": 1995, "rating": 4, "watched_at": "2020-01-01",
	}}).json(t, &logged)
	tok := b.webhookToken(alice, map[string]any{"provider": "plex"})
	if tok.WebhookURL != "http://diary.test/api/v1/webhooks/plex" {
		t.Errorf("webhook_url = %q", tok.WebhookURL)
	}
	if resp := b.plex(tok.Token, "plex-movie-scrobble.json", true); resp.status != 200 || len(resp.body) != 0 {
		t.Fatalf("webhook = %d %q, want 200 with an empty body", resp.status, resp.body)
	}
	q := b.queue(alice)
	if len(q) != 1 || q[0].Source != "plex" || q[0].MovieID == nil || *q[0].MovieID != logged.Movie.ID {
		t.Fatalf("queue = %+v, want Heat from plex linked to movie %s", q, logged.Movie.ID)
	}
}

// TestEmbyWebhookQueuesAFinishedMovie: Emby's JSON notification for a finished movie.
func TestEmbyWebhookQueuesAFinishedMovie(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	tok := b.webhookToken(alice, map[string]any{"provider": "emby"})
	b.must(200, req{method: "POST", path: "/api/v1/webhooks/emby", token: tok.Token, body: webhookFixture(t, "emby-movie-stop.json")})
	b.must(200, req{method: "POST", path: "/api/v1/webhooks/emby", token: tok.Token, body: webhookFixture(t, "emby-movie-stop-unfinished.json")})
	if q := b.queue(alice); len(q) != 1 || q[0].Source != "emby" || q[0].Title != "Heat" {
		t.Fatalf("queue = %+v, want one Heat from emby", q)
	}
	// Servers before 4.9 send multipart/form-data with the JSON in a "data" part.
	b.execSQL(`UPDATE watch_events SET watched_at = watched_at - 7200000`)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("data", string(webhookFixture(t, "emby-movie-stop.json")))
	mw.Close()
	b.accepted(b.do(req{method: "POST", path: "/api/v1/webhooks/emby?token=" + tok.Token, body: buf.Bytes(),
		header: map[string]string{"Content-Type": mw.FormDataContentType()}}))
	if q := b.queue(alice); len(q) != 2 {
		t.Errorf("queue after a multipart notification = %+v, want two entries", q)
	}
}

// TestWebhookTokenAuth: the token works as a bearer header and as ?token=; a missing, unknown,
// revoked or other provider's token is a 401 with the JSON envelope, and nothing is queued.
func TestWebhookTokenAuth(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin"})
	px := b.webhookToken(alice, map[string]any{"provider": "plex"})
	body := webhookFixture(t, "jellyfin-movie-stop.json")

	b.must(200, req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: body})
	b.must(200, req{method: "POST", path: "/api/v1/webhooks/jellyfin?token=" + jf.Token, body: body})
	if q := b.queue(alice); len(q) != 1 {
		t.Fatalf("queue after the same movie twice = %+v, want one entry", q)
	}
	for name, r := range map[string]req{
		"no token":            {method: "POST", path: "/api/v1/webhooks/jellyfin", body: body},
		"unknown token":       {method: "POST", path: "/api/v1/webhooks/jellyfin", token: strings.Repeat("ab", 32), body: body},
		"unknown query token": {method: "POST", path: "/api/v1/webhooks/jellyfin?token=nope", body: body},
		"plex token":          {method: "POST", path: "/api/v1/webhooks/jellyfin", token: px.Token, body: body},
		"a user's access JWT": {method: "POST", path: "/api/v1/webhooks/jellyfin", token: alice.token, body: body},
		"bad token, bad body": {method: "POST", path: "/api/v1/webhooks/jellyfin", token: "nope", body: "not json"},
	} {
		resp := b.do(r)
		if resp.status != 401 {
			t.Errorf("%s: status %d %s, want 401", name, resp.status, resp.body)
			continue
		}
		resp.errorMessage(t)
	}
	b.must(204, req{method: "DELETE", path: "/api/v1/settings/webhook-tokens/" + jf.ID.String(), token: alice.token})
	b.must(401, req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: body})
	b.must(404, req{method: "DELETE", path: "/api/v1/settings/webhook-tokens/" + jf.ID.String(), token: alice.token})
	bob := b.register("bob")
	b.must(404, req{method: "DELETE", path: "/api/v1/settings/webhook-tokens/" + px.ID.String(), token: bob.token})
	b.must(400, req{method: "DELETE", path: "/api/v1/settings/webhook-tokens/not-a-uuid", token: alice.token})
	if got := b.scalar(`SELECT count(*) FROM watch_events`); got != "1" {
		t.Errorf("watch events = %s, want 1", got)
	}
}

// TestWebhookTokenValidation: an unknown provider is a 400, a missing one a 422, a bad
// auto-confirm rating a 400.
func TestWebhookTokenValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	for _, c := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"provider": "kodi"}, 400},
		{map[string]any{"label": "x"}, 422},
		{map[string]any{"provider": "plex", "auto_confirm_rating": 6}, 400},
		{map[string]any{"provider": "plex", "label": strings.Repeat("x", 101)}, 400},
	} {
		b.must(c.want, req{method: "POST", path: "/api/v1/settings/webhook-tokens", token: alice.token, body: c.body}).errorMessage(t)
	}
	b.must(401, req{method: "GET", path: "/api/v1/settings/webhook-tokens"})
	if got := b.scalar(`SELECT count(*) FROM webhook_tokens`); got != "0" {
		t.Errorf("tokens = %s, want none", got)
	}
}

// TestRepeatedScrobblesWithinAnHourAreOneWatch: Plex sends media.scrobble more than once; the
// same movie for the same user within an hour is one queue entry (and one event), whichever
// server reports it, while a viewing more than an hour later is a new one.
func TestRepeatedScrobblesWithinAnHourAreOneWatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	px := b.webhookToken(alice, map[string]any{"provider": "plex"})
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin"})
	bobs := b.webhookToken(bob, map[string]any{"provider": "plex"})
	since := b.lastEvent()
	for range 3 {
		b.accepted(b.plex(px.Token, "plex-movie-scrobble.json", true))
	}
	b.accepted(b.jellyfin(jf.Token, "jellyfin-movie-stop.json"))
	if q := b.queue(alice); len(q) != 1 {
		t.Fatalf("alice's queue after four reports of Heat = %+v, want one entry", q)
	}
	if got := b.eventTypes(since); len(got) != 1 {
		t.Errorf("events = %v, want one WatchEventIngested", got)
	}
	b.accepted(b.plex(bobs.Token, "plex-movie-scrobble.json", false))
	if q := b.queue(bob); len(q) != 1 {
		t.Errorf("bob's queue = %+v, want his own entry", q)
	}
	// An hour and a second later (the earlier watch moved back in time) it is a new viewing.
	b.execSQL(`UPDATE watch_events SET watched_at = watched_at - 3601000 WHERE user_id = ?`, alice.id.String())
	b.accepted(b.plex(px.Token, "plex-movie-scrobble.json", true))
	if q := b.queue(alice); len(q) != 2 {
		t.Errorf("alice's queue after a scrobble an hour later = %+v, want two entries", q)
	}
}

// TestIgnoredNotificationsAreAnswered200: episodes, pauses, plays and unfinished stops are not
// errors (a media server would retry them); they are answered 200 and queue nothing.
func TestIgnoredNotificationsAreAnswered200(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin"})
	px := b.webhookToken(alice, map[string]any{"provider": "plex"})
	since := b.lastEvent()
	for _, f := range []string{"jellyfin-episode-stop.json", "jellyfin-movie-stop-unfinished.json", "jellyfin-movie-paused.json"} {
		if resp := b.jellyfin(jf.Token, f); resp.status != 200 {
			t.Errorf("%s: %d %s, want 200", f, resp.status, resp.body)
		}
	}
	for _, f := range []string{"plex-movie-play.json", "plex-movie-pause.json", "plex-episode-scrobble.json"} {
		if resp := b.plex(px.Token, f, true); resp.status != 200 {
			t.Errorf("%s: %d %s, want 200", f, resp.status, resp.body)
		}
	}
	if q := b.queue(alice); len(q) != 0 {
		t.Errorf("queue = %+v, want it empty", q)
	}
	if got := b.eventTypes(since); len(got) != 0 {
		t.Errorf("events = %v, want none", got)
	}
}

// TestMalformedWebhooksAre400: a body that is not the provider's format is a 400 with the JSON
// envelope.
func TestMalformedWebhooksAre400(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin"})
	px := b.webhookToken(alice, map[string]any{"provider": "plex"})
	noPayload, ct := func() ([]byte, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("other", "x")
		mw.Close()
		return buf.Bytes(), mw.FormDataContentType()
	}()
	badJSON, ct2 := plexBody(t, []byte(`{"event": "media.scrobble", `), false)
	for name, r := range map[string]req{
		"jellyfin not json":  {method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: "not json"},
		"jellyfin empty":     {method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: ""},
		"jellyfin array":     {method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: "[]"},
		"plex json body":     {method: "POST", path: "/api/v1/webhooks/plex", token: px.Token, body: webhookFixture(t, "plex-movie-scrobble.json")},
		"plex no payload":    {method: "POST", path: "/api/v1/webhooks/plex", token: px.Token, body: noPayload, header: map[string]string{"Content-Type": ct}},
		"plex bad json":      {method: "POST", path: "/api/v1/webhooks/plex", token: px.Token, body: badJSON, header: map[string]string{"Content-Type": ct2}},
		"plex cut multipart": {method: "POST", path: "/api/v1/webhooks/plex", token: px.Token, body: badJSON[:40], header: map[string]string{"Content-Type": ct2}},
	} {
		resp := b.do(r)
		if resp.status != 400 {
			t.Errorf("%s: %d %s, want 400", name, resp.status, resp.body)
			continue
		}
		resp.errorMessage(t)
	}
}

// TestWebhooksHaveTheirOwnRateBudget: the webhooks get a quarter of the auth budget per IP (15
// a minute by default), apart from the other routes.
func TestWebhooksHaveTheirOwnRateBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	jf := b.webhookToken(alice, map[string]any{"provider": "jellyfin"})
	body := webhookFixture(t, "jellyfin-episode-stop.json")
	for range 15 {
		b.must(200, req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: body})
	}
	b.must(429, req{method: "POST", path: "/api/v1/webhooks/jellyfin", token: jf.Token, body: body}).errorMessage(t)
	b.must(429, req{method: "POST", path: "/api/v1/webhooks/plex", token: jf.Token, body: body})
	// The auth routes' budget is untouched.
	b.register("bob")
}

// TestPlexThumbnailIsNeverRead: the payload part comes first and the body is read no further,
// so a thumbnail past the API's 1 MiB body limit does not turn the scrobble into a 413.
func TestPlexThumbnailIsNeverRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	tok := b.webhookToken(alice, map[string]any{"provider": "plex"})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	pw, _ := mw.CreateFormField("payload")
	pw.Write(webhookFixture(t, "plex-movie-scrobble.json"))
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="thumb"; filename="image.jpg"`)
	h.Set("Content-Type", "image/jpeg")
	tw, _ := mw.CreatePart(h)
	tw.Write(bytes.Repeat([]byte{0xff}, 3<<20))
	mw.Close()
	b.accepted(b.do(req{method: "POST", path: "/api/v1/webhooks/plex?token=" + tok.Token, body: buf.Bytes(),
		header: map[string]string{"Content-Type": mw.FormDataContentType()}}))
	if q := b.queue(alice); len(q) != 1 {
		t.Errorf("queue = %+v, want the scrobble", q)
	}
}
