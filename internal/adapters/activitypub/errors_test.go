package activitypub_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/domain"
)

// brokenStore fails the reads the error-mapping test reaches, with a wrapped chain that must
// not reach the client; any other call panics (a nil embedded interface).
type brokenStore struct {
	activitypub.Store
}

const secret = "open /var/lib/moviesdiary/secret.db: disk I/O error"

func (brokenStore) NodeStats(context.Context) (int, int, error) {
	return 0, 0, fmt.Errorf("count users: %w", errors.New(secret))
}

func (brokenStore) UserByID(_ context.Context, id uuid.UUID) (domain.User, error) {
	return domain.User{}, fmt.Errorf("load user from %s: %w", secret, domain.NotFound("Entity not found: user"))
}

func (brokenStore) DomainBlocked(context.Context, string) (bool, error) { return false, nil }

// syncBuffer is a log sink the handlers and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFederationRoutesShareTheErrorMapping: the federation routes answer through the API's one
// error mapping. An internal failure is a 500 with the generic message, its wrapped chain only
// in the log; a client mistake is its 4xx with its own message, not the chain around it.
func TestFederationRoutesShareTheErrorMapping(t *testing.T) {
	t.Parallel()
	fed, err := activitypub.New(brokenStore{}, activitypub.Config{BaseURL: "https://here.example", Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(io.MultiWriter(&logs, t.Output()), nil))
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Log: log, Routes: fed.Routes()}).Handler())
	t.Cleanup(srv.Close)

	for _, c := range []struct {
		method, path string
		body         string
		status       int
		want         string // the whole error envelope
	}{
		{"GET", "/nodeinfo/2.0", "", 500, `{"error":"internal server error"}`},
		{"GET", "/users/" + uuid.NewString(), "", 404, `{"error":"Entity not found: user"}`},
		{"GET", "/users/not-a-uuid", "", 400, `{"error":"id must be a UUID"}`},
		{"GET", "/.well-known/webfinger", "", 400, `{"error":"resource must be acct:user@host or an actor URL"}`},
		{"POST", "/inbox", `{"type":"Follow"}`, 401, `{"error":"request signature could not be verified"}`},
		{"POST", "/inbox", strings.Repeat("x", activitypub.MaxInboxBody+1), 413, `{"error":"body over 1 MiB"}`},
	} {
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/activity+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(body)); resp.StatusCode != c.status || got != c.want {
			t.Errorf("%s %s = %d %s, want %d %s", c.method, c.path, resp.StatusCode, got, c.status, c.want)
		}
		if strings.Contains(string(body), "secret.db") {
			t.Errorf("%s %s leaked the wrapped error: %s", c.method, c.path, body)
		}
	}
	if !strings.Contains(logs.String(), "secret.db") || !strings.Contains(logs.String(), "/nodeinfo/2.0") {
		t.Errorf("the internal error is not in the log:\n%s", logs.String())
	}
}
