package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/app"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

var testSecret = []byte("web test secret, thirty-two bytes")

// fastHasher keeps argon2id but cheap, so tests register users quickly.
var fastHasher = auth.Hasher{Memory: 64, Time: 1, Threads: 1}

// bundle is one test's instance: a real SQLite file, the real use cases and the whole site
// (pages in front of the API and the federation routes) over real HTTP.
type bundle struct {
	*mediatest.Env
	t    testing.TB
	srv  *httptest.Server
	site *app.Site
	// metrics are the request counts the site records.
	metrics *metrics.Server
}

type options struct {
	baseURL       string
	rootToClient  bool
	noFederation  bool
	authRateLimit int
	// registration, when set, is the registration mode (no first-user admin).
	registration domain.RegistrationMode
	// tmdb configures the fake TMDb (Env.TMDb) as the metadata provider, CDN included.
	tmdb bool
	// logOut receives the server's log lines as JSON (default: discarded).
	logOut io.Writer
	// mail: the instance sends mail (SMTP_HOST set).
	mail bool
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
	env := mediatest.New(t)
	if o.logOut != nil {
		env.Log = slog.New(slog.NewJSONHandler(o.logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	m := metrics.NewServer()
	ao := app.Options{Log: env.Log, Metrics: m, BaseURL: o.baseURL, Secret: testSecret, AllowRegistration: o.registration == "",
		Registration: o.registration,
		Hasher:       fastHasher, Images: env.Local, RootToClient: o.rootToClient, AuthRateLimit: o.authRateLimit,
		Mail: o.mail, RequireTwoFactor: o.requireTwoFactor}
	if o.tmdb {
		ao.Metadata, ao.MetadataImageURL = env.TMDb.Client(), env.TMDb.ImageURL()
	}
	if !o.noFederation {
		f, err := activitypub.New(env.Store, activitypub.Config{BaseURL: o.baseURL, Logger: env.Log})
		if err != nil {
			t.Fatal(err)
		}
		ao.Federation = f
	}
	site, err := app.NewSite(env.Store, ao)
	if err != nil {
		t.Fatal(err)
	}
	b := &bundle{Env: env, t: t, site: site, metrics: m}
	b.srv = httptest.NewServer(site.Handler())
	t.Cleanup(b.srv.Close)
	return b
}

// browser is one cookie jar: a visitor, or a user once signed in. It does not follow
// redirects, so tests see the 303s.
type browser struct {
	b      *bundle
	client *http.Client
}

func (b *bundle) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{b: b, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is a response with its body read.
type page struct {
	status int
	header http.Header
	body   string
}

func (p page) location() string { return p.header.Get("Location") }

func (br *browser) do(req *http.Request) page {
	br.b.t.Helper()
	resp, err := br.client.Do(req)
	if err != nil {
		br.b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		br.b.t.Fatal(err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (br *browser) get(path string, header ...string) page {
	br.b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, br.b.srv.URL+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return br.do(req)
}

// csrf is the jar's CSRF cookie, fetched with a page when the jar has none yet.
func (br *browser) csrf() string {
	u, _ := url.Parse(br.b.srv.URL)
	for _, c := range br.client.Jar.Cookies(u) {
		if strings.HasSuffix(c.Name, "md_csrf") {
			return c.Value
		}
	}
	br.get("/login")
	for _, c := range br.client.Jar.Cookies(u) {
		if strings.HasSuffix(c.Name, "md_csrf") {
			return c.Value
		}
	}
	br.b.t.Fatal("no CSRF cookie")
	return ""
}

// post submits a form with the jar's CSRF token.
func (br *browser) post(path string, form url.Values) page {
	br.b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if !form.Has("csrf") {
		form.Set("csrf", br.csrf())
	}
	return br.postRaw(path, form)
}

// postRaw submits a form as it is.
func (br *browser) postRaw(path string, form url.Values) page {
	br.b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, br.b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return br.do(req)
}

// mustStatus fails unless p has status want.
func mustStatus(t testing.TB, p page, want int) page {
	t.Helper()
	if p.status != want {
		t.Fatalf("status %d, want %d; Location %q; body:\n%s", p.status, want, p.location(), excerpt(p.body))
	}
	return p
}

func excerpt(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// contains fails unless the body has every want.
func contains(t testing.TB, p page, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("page lacks %q; body:\n%s", w, excerpt(p.body))
		}
	}
}

func lacks(t testing.TB, p page, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(p.body, w) {
			t.Errorf("page has %q", w)
		}
	}
}

// register creates an account in a new browser, signed in.
func (b *bundle) register(name string) *browser {
	b.t.Helper()
	br := b.browser()
	p := br.post("/register", url.Values{"email": {name + "@example.com"}, "username": {name},
		"password": {"correct horse"}, "password2": {"correct horse"}})
	mustStatus(b.t, p, http.StatusSeeOther)
	return br
}

// userID is a user's id by username.
func (b *bundle) userID(name string) uuid.UUID {
	b.t.Helper()
	id, err := uuid.Parse(b.String(`SELECT id FROM users WHERE username = ?`, name))
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

// logReview logs a review through the form and returns the movie page it redirects to.
func (br *browser) logReview(title, year string, rating int, comment string) string {
	br.b.t.Helper()
	p := mustStatus(br.b.t, br.post("/log", url.Values{"title": {title}, "year": {year},
		"rating": {strconv.Itoa(rating)}, "comment": {comment}, "watched_at": {"2024-03-01"}, "medium": {"cinema"}}),
		http.StatusSeeOther)
	return strings.TrimSuffix(p.location(), "?done=logged")
}

// editLink is an edit link: the review's id alone.
var editLink = regexp.MustCompile(`/review/([0-9a-f-]{36})/edit"`)

var ctx = context.Background()
