package activitypub_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fed/httpsig"
	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// instance is one moviesdiary server under test: a real SQLite file, the real API with the
// federation routes, on a loopback port whose URL is its BASE_URL.
type instance struct {
	t     testing.TB
	base  string
	store *sqlite.Store
	fed   *activitypub.Federation
	srv   *httptest.Server
	db    *sql.DB // db reads the file directly, for assertions
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newInstance starts an instance; now, when set, is its federation clock.
func newInstance(t testing.TB, now func() time.Time) *instance {
	t.Helper()
	return newInstanceWith(t, func(cfg *activitypub.Config) { cfg.Now = now })
}

// newInstanceWith starts an instance whose federation config configure changes (from loopback
// allowed, a quiet log and the real clock).
func newInstanceWith(t testing.TB, configure func(*activitypub.Config)) *instance {
	t.Helper()
	return newInstanceOver(t, func(cfg *activitypub.Config, _ *sqlite.Store) {
		if configure != nil {
			configure(cfg)
		}
	})
}

// newInstanceOver is newInstanceWith whose configure also sees the instance's store.
func newInstanceOver(t testing.TB, configure func(*activitypub.Config, *sqlite.Store)) *instance {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	path := filepath.Join(t.TempDir(), "test.db")
	store := sqlitetest.Open(t, path)
	cfg := activitypub.Config{
		BaseURL: base, Client: activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: true}),
		Logger: quietLog(), AllowRegistration: true, Version: "v1.2.3-test",
	}
	configure(&cfg, store)
	fed, err := activitypub.New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	api, err := app.NewAPI(store, app.Options{Log: quietLog(), BaseURL: base, AllowRegistration: true,
		Secret: []byte("test secret, thirty-two bytes..!"), Federation: fed})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = api.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &instance{t: t, base: base, store: store, fed: fed, srv: srv, db: db}
}

// user creates a local user.
func (in *instance) user(name string) domain.User {
	in.t.Helper()
	u, err := in.store.CreateUser(context.Background(), domain.User{ID: uuid.New(), Username: name,
		Email: name + "@example.test", PasswordHash: "x", CreatedAt: time.Now()})
	if err != nil {
		in.t.Fatal(err)
	}
	return u
}

func (in *instance) actor(u domain.User) string { return in.base + "/users/" + u.ID.String() }

// count runs a count query on the instance's database.
func (in *instance) count(query string, args ...any) int {
	in.t.Helper()
	var n int
	if err := in.db.QueryRow(query, args...).Scan(&n); err != nil {
		in.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// remote is a fake fediverse server that speaks the wire format: WebFinger, actor documents
// with their public keys, and inboxes that verify our HTTP signatures with an independent
// implementation (go-fed/httpsig) and the Digest, and record what they accepted.
type remote struct {
	t    testing.TB
	srv  *httptest.Server
	base string

	mu       sync.Mutex
	keys     map[string]*rsa.PrivateKey
	posts    []post
	status   func(inbox string, n int) int // answer to the n-th POST (from 1) at inbox; nil: 202
	attempts map[string]int
	outbox   map[string][]any // username → outbox items
	noShared bool             // noShared: actors advertise no shared inbox
	// retryAfter is the Retry-After header of a 429 or 503 answer ("" for none).
	retryAfter string

	actorFetches int // GETs of actor documents
}

// fetches is how many actor documents were fetched from the remote.
func (r *remote) fetches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.actorFetches
}

// The answers of a remote's status hook that are not a status: never answer (a black hole), or
// cut the connection (a server restarting).
const (
	statusHang = -1
	statusDrop = -2
)

// post is one inbox POST the remote accepted.
type post struct {
	Inbox    string
	Activity map[string]any
	Raw      []byte
}

func newRemote(t testing.TB) *remote { return newRemoteAt(t, "127.0.0.1") }

// newRemoteAt starts a remote on a loopback address of its own (127.0.0.N), so that to the
// delivery lane it is a host of its own.
func newRemoteAt(t testing.TB, ip string) *remote {
	t.Helper()
	r := &remote{t: t, keys: map[string]*rsa.PrivateKey{}, attempts: map[string]int{}, outbox: map[string][]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/webfinger", r.webfinger)
	mux.HandleFunc("GET /users/{name}", func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.actorFetches++
		r.mu.Unlock()
		r.actorDoc(w, req)
	})
	mux.HandleFunc("POST /users/{name}/inbox", r.inbox)
	mux.HandleFunc("POST /inbox", r.inbox)
	mux.HandleFunc("GET /users/{name}/outbox", r.outboxDoc)
	r.srv = httptest.NewUnstartedServer(mux)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	r.srv.Listener.Close()
	r.srv.Listener = ln
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	r.base = r.srv.URL
	return r
}

// addUser gives the remote an actor with a fresh key; its URL is returned.
func (r *remote) addUser(name string) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.keys[name] = key
	r.mu.Unlock()
	return r.actorURL(name)
}

func (r *remote) actorURL(name string) string { return r.base + "/users/" + name }

func (r *remote) key(name string) *rsa.PrivateKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[name]
}

func (r *remote) webfinger(w http.ResponseWriter, req *http.Request) {
	res := strings.TrimPrefix(req.URL.Query().Get("resource"), "acct:")
	name, _, _ := strings.Cut(res, "@")
	if r.key(name) == nil {
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", "application/jrd+json")
	json.NewEncoder(w).Encode(map[string]any{"subject": "acct:" + res, "links": []map[string]string{
		{"rel": "self", "type": "application/activity+json", "href": r.actorURL(name)}}})
}

func (r *remote) actorDoc(w http.ResponseWriter, req *http.Request) {
	name := req.PathValue("name")
	key := r.key(name)
	if key == nil {
		http.NotFound(w, req)
		return
	}
	pub, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	id := r.actorURL(name)
	doc := map[string]any{
		"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       id, "type": "Person", "preferredUsername": name, "inbox": id + "/inbox", "outbox": id + "/outbox",
		"publicKey": map[string]string{"id": id + "#main-key", "owner": id,
			"publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))},
	}
	if !r.noShared {
		doc["endpoints"] = map[string]string{"sharedInbox": r.base + "/inbox"}
	}
	w.Header().Set("Content-Type", "application/activity+json")
	json.NewEncoder(w).Encode(doc)
}

func (r *remote) outboxDoc(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	items := r.outbox[req.PathValue("name")]
	r.mu.Unlock()
	id := r.actorURL(req.PathValue("name")) + "/outbox"
	w.Header().Set("Content-Type", "application/activity+json")
	if req.URL.Query().Get("page") == "" {
		json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "OrderedCollection", "totalItems": len(items), "first": id + "?page=1"})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"id": id + "?page=1", "type": "OrderedCollectionPage", "orderedItems": items})
}

// inbox verifies the request as a real server would: the Digest against the body, then the
// signature with the key its keyId names, fetched from the signer's actor document.
func (r *remote) inbox(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if err := verifyWithGoFed(req, body); err != nil {
		r.t.Logf("remote inbox refused a request: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	r.mu.Lock()
	inbox := req.URL.Path
	r.attempts[inbox]++
	n := r.attempts[inbox]
	status := http.StatusAccepted
	if r.status != nil {
		status = r.status(inbox, n)
	}
	switch status {
	case statusHang: // a black hole: the request is read and never answered
		r.mu.Unlock()
		<-req.Context().Done()
		return
	case statusDrop: // a server going down: the connection is cut without an answer
		r.mu.Unlock()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if r.retryAfter != "" {
			w.Header().Set("Retry-After", r.retryAfter)
		}
	}
	if status < 300 {
		var a map[string]any
		json.Unmarshal(body, &a)
		r.posts = append(r.posts, post{Inbox: inbox, Activity: a, Raw: body})
	}
	r.mu.Unlock()
	w.WriteHeader(status)
}

// received returns the accepted posts so far.
func (r *remote) received() []post {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]post(nil), r.posts...)
}

// verifyWithGoFed checks a request's Digest and HTTP signature with go-fed/httpsig, fetching
// the key from the keyId's actor document.
func verifyWithGoFed(req *http.Request, body []byte) error {
	if d := req.Header.Get("Digest"); d != activitypub.Digest(body) {
		return fmt.Errorf("digest %q does not match the body", d)
	}
	v, err := httpsig.NewVerifier(req)
	if err != nil {
		return err
	}
	actorURL, _, _ := strings.Cut(v.KeyId(), "#")
	greq, _ := http.NewRequest(http.MethodGet, actorURL, nil)
	greq.Header.Set("Accept", "application/activity+json")
	resp, err := http.DefaultClient.Do(greq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var doc struct {
		PublicKey struct{ ID, Owner, PublicKeyPem string } `json:"publicKey"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return err
	}
	if doc.PublicKey.ID != v.KeyId() {
		return fmt.Errorf("key %s not found on %s", v.KeyId(), actorURL)
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return fmt.Errorf("bad key PEM")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return err
	}
	return v.Verify(pub, httpsig.RSA_SHA256)
}

// signedPost POSTs activity to url signed by the remote user name with go-fed/httpsig; mutate
// may change the request after signing (to forge it).
func (r *remote) signedPost(url, name string, activity any, date time.Time, mutate func(*http.Request)) *http.Response {
	r.t.Helper()
	body, err := json.Marshal(activity)
	if err != nil {
		r.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := signer.SignRequest(r.key(name), r.actorURL(name)+"#main-key", req, body); err != nil {
		r.t.Fatal(err)
	}
	if mutate != nil {
		mutate(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(answer)) // the answer stays readable
	return resp
}

// startWorker runs the worker's federation handlers over the instance's outbox until the test
// ends, with a 1 ms backoff base so retries come quickly.
func (in *instance) startWorker() {
	in.t.Helper()
	engine, err := delivery.NewEngine(delivery.Config{BackoffBase: time.Millisecond, Logger: quietLog()},
		in.store.Ledger(), in.fed.Handlers()...)
	if err != nil {
		in.t.Fatal(err)
	}
	queue := in.store.Queue(outbox.QueueConfig{MaxAttempts: 5, Logger: quietLog()})
	pump := delivery.NewPump(queue, engine, delivery.PumpConfig{Grace: time.Second, Logger: quietLog()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = pump.Run(ctx); close(done) }()
	in.t.Cleanup(func() { cancel(); <-done; queue.Close() })
}

// eventually waits, up to a deadline, for cond to hold.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval of the wait, not a synchronisation
	}
}

// dump logs the outbox, for a failing test.
func (in *instance) dump() {
	rows, err := in.db.Query(`SELECT event_type, status, attempts, COALESCE(last_error, '') FROM event_queue ORDER BY id`)
	if err != nil {
		in.t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var typ, status, lastErr string
		var attempts int
		rows.Scan(&typ, &status, &attempts, &lastErr)
		in.t.Logf("outbox: %s %s attempts=%d %s", typ, status, attempts, lastErr)
	}
}

// settled reports whether the outbox has no pending or processing row.
func (in *instance) settled() bool {
	return in.count(`SELECT count(*) FROM event_queue WHERE status IN ('pending', 'processing')`) == 0
}

// acceptRemoteFollower makes the remote actor an accepted follower of u, as an inbound Follow
// and the user's acceptance would.
func (in *instance) acceptRemoteFollower(u domain.User, actorURL string) {
	in.t.Helper()
	ctx := context.Background()
	// Fetched until it answers: a world with a short client timeout (the lane's) can time out
	// on a loaded machine, which is not what its tests test.
	var err error
	for range 5 {
		if _, err = in.fed.Actor(ctx, actorURL, true); err == nil {
			break
		}
	}
	if err != nil {
		in.t.Fatal(err)
	}
	if err := in.store.AddRemoteFollower(ctx, u.ID, actorURL, actorURL+"/follows/1", in.actor(u)); err != nil {
		in.t.Fatal(err)
	}
	if err := in.store.AcceptFollower(ctx, u.ID, domain.RemoteIdentity(actorURL)); err != nil {
		in.t.Fatal(err)
	}
}

// logReview logs a review of The Matrix (tt0133093) by u through the store, with its events.
func (in *instance) logReview(u domain.User, rating int) uuid.UUID {
	in.t.Helper()
	ext := "tt0133093"
	comment := "mind-bending"
	r := domain.Review{ID: uuid.New(), UserID: u.ID, Rating: rating, Comment: &comment,
		WatchedAt: time.Date(2024, 3, 1, 20, 0, 0, 0, time.UTC), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	m := domain.Movie{ID: domain.MovieIDFor(ext), ExternalID: &ext, Title: "The Matrix", ReleaseYear: 1999}
	if _, err := in.store.LogReview(context.Background(), r, m, nil); err != nil {
		in.t.Fatal(err)
	}
	return r.ID
}

// postsOf returns the remote's accepted posts of activity type typ.
func (r *remote) postsOf(typ string) []post {
	var out []post
	for _, p := range r.received() {
		if p.Activity["type"] == typ {
			out = append(out, p)
		}
	}
	return out
}

// call makes an API request with a bearer token (none when empty) and returns the status and
// body.
func (in *instance) call(method, path, token string, body any) (int, []byte) {
	in.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			in.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, in.base+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// must makes an API request and fails the test unless it answers want.
func (in *instance) must(want int, method, path, token string, body any) []byte {
	in.t.Helper()
	status, out := in.call(method, path, token, body)
	if status != want {
		in.t.Fatalf("%s %s = %d %s, want %d", method, path, status, out, want)
	}
	return out
}

// register creates a user through the API and returns it with an access token.
func (in *instance) register(name string) (domain.User, string) {
	in.t.Helper()
	email := name + "@example.test"
	in.must(201, "POST", "/api/v1/auth/register", "", map[string]string{"email": email, "username": name, "password": "password-" + name})
	var login struct {
		Token  string    `json:"token"`
		UserID uuid.UUID `json:"user_id"`
	}
	if err := json.Unmarshal(in.must(200, "POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": "password-" + name}), &login); err != nil {
		in.t.Fatal(err)
	}
	u, err := in.store.UserByID(context.Background(), login.UserID)
	if err != nil {
		in.t.Fatal(err)
	}
	return u, login.Token
}

// host is the instance's host:port, the host part of its users' handles.
func (in *instance) host() string { return strings.TrimPrefix(in.base, "http://") }

func (r *remote) host() string { return strings.TrimPrefix(r.base, "http://") }
