package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// inboxPost is an activity a fake remote server accepted, with the key id that signed it.
type inboxPost struct {
	Type, Object, KeyID string
}

// fakeRemote is a remote server with one actor (bob) whose inbox records what arrives: the
// actor document in the shape Mastodon serves, and 202 Accepted for every signed POST.
func fakeRemote(t *testing.T) (srv *httptest.Server, actor string, got func() []inboxPost) {
	var mu sync.Mutex
	var posts []inboxPost
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/users/bob":
			w.Header().Set("Content-Type", "application/activity+json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
				"id":       srv.URL + "/users/bob", "type": "Person", "preferredUsername": "bob",
				"inbox": srv.URL + "/users/bob/inbox", "endpoints": map[string]string{"sharedInbox": srv.URL + "/inbox"},
			})
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "inbox"):
			var a struct {
				Type   string          `json:"type"`
				Object json.RawMessage `json:"object"`
			}
			body, _ := io.ReadAll(r.Body)
			if json.Unmarshal(body, &a) != nil || r.Header.Get("Signature") == "" {
				http.Error(w, "unsigned or not JSON", http.StatusUnauthorized)
				return
			}
			var object string
			if json.Unmarshal(a.Object, &object) != nil {
				var o struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(a.Object, &o)
				object = o.ID
			}
			keyID := ""
			for _, part := range strings.Split(r.Header.Get("Signature"), ",") {
				if v, ok := strings.CutPrefix(part, `keyId="`); ok {
					keyID = strings.TrimSuffix(v, `"`)
				}
			}
			mu.Lock()
			posts = append(posts, inboxPost{Type: a.Type, Object: object, KeyID: keyID})
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, srv.URL + "/users/bob", func() []inboxPost {
		mu.Lock()
		defer mu.Unlock()
		return append([]inboxPost(nil), posts...)
	}
}

// TestFederationDeliveriesOnEveryBackend runs the whole worker on the three backends: a remote
// follower's acceptance and a review reach the follower's server through the delivery lane,
// signed by the local actor's key, and the outbox never holds a delivery
// (docs/adr/0007-federation-deliveries-queued-by-the-publication.md).
func TestFederationDeliveriesOnEveryBackend(t *testing.T) {
	for _, backend := range []string{"db", "jetstream", "core"} {
		t.Run(backend, func(t *testing.T) {
			path, _ := workerEnv(t, backend)
			base := "http://moviesdiary.test"
			t.Setenv("BASE_URL", base)
			t.Setenv("FEDERATION_ALLOW_PRIVATE", "true")
			cfg, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			srv, bob, received := fakeRemote(t) // closed after the worker stops
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, cfg, testLog(t), time.Now) }()
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("run: %v", err)
				}
			})
			store := sqlitetest.Open(t, path)
			alice, err := store.CreateUser(ctx, domain.User{ID: uuid.New(), Username: "alice", Email: "alice@example.test",
				PasswordHash: "x", CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			me := base + "/users/" + alice.ID.String()
			if err := store.SaveRemoteActor(ctx, domain.RemoteActor{URL: bob, Inbox: bob + "/inbox", SharedInbox: srv.URL + "/inbox",
				Handle: "@bob@" + strings.TrimPrefix(srv.URL, "http://"), FetchedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if err := store.AddRemoteFollower(ctx, alice.ID, bob, bob+"/follows/1", me); err != nil {
				t.Fatal(err)
			}
			if err := store.AcceptFollower(ctx, alice.ID, domain.RemoteIdentity(bob)); err != nil {
				t.Fatal(err)
			}
			ext := "tt0133093"
			r := domain.Review{ID: uuid.New(), UserID: alice.ID, Rating: 5, WatchedAt: time.Date(2024, 3, 1, 20, 0, 0, 0, time.UTC),
				CreatedAt: time.Now(), UpdatedAt: time.Now()}
			if _, err := store.LogReview(ctx, r, domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix",
				ReleaseYear: 1999}, nil); err != nil {
				t.Fatal(err)
			}
			review := base + "/reviews/" + r.ID.String()
			deliverytest.Eventually(t, waitLimit, "the Accept and the review's Create received", func() bool {
				var accept, create bool
				for _, p := range received() {
					accept = accept || p.Type == "Accept"
					create = create || (p.Type == "Create" && p.Object == review)
				}
				return accept && create
			})
			for _, p := range received() {
				if p.KeyID != me+"#main-key" {
					t.Errorf("%s signed by %q, want alice's key %q", p.Type, p.KeyID, me+"#main-key")
				}
			}
			// The follower's backfill may have sent the review once more: a repeat its server drops.
			deliverytest.Eventually(t, waitLimit, "every delivery done in the lane's queue", func() bool {
				c, err := store.DeliveryCounts(ctx)
				return err == nil && c["done"] >= 2 && len(c) == 1
			})
			rows, err := store.ListEvents(ctx, "", "FederationDeliveryRequested", 10)
			if err != nil || len(rows) != 0 {
				t.Errorf("the outbox holds %d deliveries (%v), want none", len(rows), err)
			}
		})
	}
}
