package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/token"
	"moviesdiary/internal/app"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/movie"
)

// testSecret signs the tests' tokens.
var testSecret = []byte("test secret, thirty-two bytes..!")

// fastHasher keeps argon2id but cheap, so tests register many users quickly.
var fastHasher = auth.Hasher{Memory: 64, Time: 1, Threads: 1}

// bundle is one test's server: a real SQLite file, the real use cases, real HTTP.
type bundle struct {
	t       testing.TB
	srv     *httptest.Server
	handler http.Handler
	store   *sqlite.Store
	images  *storage.Local  // images is the image directory profile uploads go to
	db      *sql.DB         // db reads the file directly, for assertions
	metrics *metrics.Server // metrics are the request counts the API records
	// failEnqueue makes every event write fail inside its transaction.
	failEnqueue atomic.Bool
	// skipEnqueue drops every event write (the benchmark's no-outbox case).
	skipEnqueue atomic.Bool
	// writer runs a transaction on the store's own writer connection (its per-connection
	// pragmas, such as max_page_count).
	writer sqlite.WriteFunc
}

// options tune setup.
type options struct {
	metadata         movie.Metadata
	authRateLimit    int
	disallowRegister bool
	// registration, when set, is the registration mode (no first-user admin).
	registration   domain.RegistrationMode
	baseURL        string
	trustedProxies []netip.Prefix
	corsOrigins    []string
	webClientDir   string
	logOut         io.Writer // logOut receives the server's log lines as JSON (default: discarded)
	ready          httpapi.Readiness
	mail           bool // mail: the instance sends mail (SMTP_HOST set)
	// requireTwoFactor is REQUIRE_TWO_FACTOR.
	requireTwoFactor bool
}

func setup(t testing.TB, opts ...options) *bundle {
	t.Helper()
	var o options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.baseURL == "" {
		o.baseURL = "http://diary.test"
	}
	path := filepath.Join(t.TempDir(), "test.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if o.logOut != nil {
		log = slog.New(slog.NewJSONHandler(o.logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	b := &bundle{t: t, metrics: metrics.NewServer()}
	enqueue := func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error {
		if b.failEnqueue.Load() && len(events) > 0 {
			return errors.New("injected enqueue failure")
		}
		if b.skipEnqueue.Load() {
			return nil
		}
		return outbox.Insert(ctx, tx, now, events...)
	}
	store := sqlitetest.Open(t, path, sqlite.WithEnqueue(enqueue), sqlite.WithMeasurementWriter(&b.writer))
	b.store = store
	images, err := storage.OpenLocal(filepath.Join(t.TempDir(), "images"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { images.Close() })
	b.images = images
	api, err := app.NewAPI(store, app.Options{Images: images, Registration: o.registration,
		Log: log, BaseURL: o.baseURL, Secret: testSecret, AllowRegistration: !o.disallowRegister && o.registration == "",
		AuthRateLimit: o.authRateLimit, Metadata: o.metadata, Hasher: fastHasher, Metrics: b.metrics,
		TrustedProxies: o.trustedProxies,
		CORSOrigins:    o.corsOrigins, WebClientDir: o.webClientDir, Ready: o.ready, Mail: o.mail, RequireTwoFactor: o.requireTwoFactor,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.handler = api.Handler()
	b.srv = httptest.NewServer(b.handler)
	t.Cleanup(b.srv.Close)
	b.db, err = sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.db.Close() })
	return b
}

// response is what a request returned.
type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into v, failing the test if it is not JSON.
func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q is not the expected JSON: %v", r.body, err)
	}
}

// errorMessage checks the body is the error envelope and returns its message.
func (r response) errorMessage(t testing.TB) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("error Content-Type = %q, want application/json (body %q)", ct, r.body)
	}
	var env map[string]any
	r.json(t, &env)
	msg, ok := env["error"].(string)
	if !ok || len(env) != 1 || msg == "" {
		t.Fatalf("error body %s is not {\"error\": \"<message>\"}", r.body)
	}
	return msg
}

// req is one request; body is marshalled unless it is a string (sent as is).
type req struct {
	method, path, token string
	body                any
	header              map[string]string
}

func (b *bundle) do(r req) response {
	b.t.Helper()
	var body io.Reader
	switch v := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(v)
	case []byte:
		body = bytes.NewReader(v)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			b.t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(r.method, b.srv.URL+r.path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	resp, err := b.srv.Client().Do(hr)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// must does r and fails the test unless it answers want.
func (b *bundle) must(want int, r req) response {
	b.t.Helper()
	resp := b.do(r)
	if resp.status != want {
		b.t.Fatalf("%s %s = %d %s, want %d", r.method, r.path, resp.status, resp.body, want)
	}
	return resp
}

// account is a registered, logged-in user.
type account struct {
	id       uuid.UUID
	username string
	token    string
	refresh  string
}

// register creates and logs in a user named name.
func (b *bundle) register(name string) account {
	b.t.Helper()
	email := name + "@example.test"
	b.must(201, req{method: "POST", path: "/api/v1/auth/register",
		body: map[string]string{"email": email, "username": name, "password": "password-" + name}})
	var login struct {
		Token        string    `json:"token"`
		RefreshToken string    `json:"refresh_token"`
		UserID       uuid.UUID `json:"user_id"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/auth/login",
		body: map[string]string{"email": email, "password": "password-" + name}}).json(b.t, &login)
	return account{id: login.UserID, username: name, token: login.Token, refresh: login.RefreshToken}
}

// logReview logs a manual review of title (1999) and returns the review and movie ids.
func (b *bundle) logReview(a account, title string, rating int, watched string) (reviewID, movieID uuid.UUID) {
	b.t.Helper()
	var out struct {
		Movie  struct{ ID uuid.UUID } `json:"movie"`
		Review struct{ ID uuid.UUID } `json:"review"`
	}
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: a.token, body: map[string]any{
		"manual_title": title, "manual_release_year": 1999, "rating": rating, "watched_at": watched,
	}}).json(b.t, &out)
	return out.Review.ID, out.Movie.ID
}

// scalar runs a query returning one value, as text.
func (b *bundle) scalar(query string, args ...any) string {
	b.t.Helper()
	var v sql.NullString
	if err := b.db.QueryRow(query, args...).Scan(&v); err != nil {
		b.t.Fatalf("%s: %v", query, err)
	}
	return v.String
}

// eventTypes are the outbox rows' types after row id since, in insert order.
func (b *bundle) eventTypes(since int64) []string {
	b.t.Helper()
	rows, err := b.db.Query(`SELECT event_type FROM event_queue WHERE id > ? ORDER BY id`, since)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			b.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// lastEvent is the newest outbox row id (0 for none).
func (b *bundle) lastEvent() int64 {
	b.t.Helper()
	var id sql.NullInt64
	if err := b.db.QueryRow(`SELECT max(id) FROM event_queue`).Scan(&id); err != nil {
		b.t.Fatal(err)
	}
	return id.Int64
}

// expiredToken is a correctly signed token that expired a minute ago.
func expiredToken(t *testing.T, id uuid.UUID) string {
	t.Helper()
	s, err := token.New(testSecret, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := s.Issue(id, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
