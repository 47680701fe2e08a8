// Package web is the server-rendered interface: HTML pages over the same use cases as the REST
// API, usable with JavaScript turned off. Templates and the stylesheet are embedded, so the one
// binary serves them with no build step. Handlers only translate forms and queries into use-case
// calls and results into template data; every rule stays in the use cases.
//
// The pages sit in front of the API: Handler(next) serves its own paths and hands every other
// request (the REST API, the federation routes, images) to next.
package web

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/archive"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/goal"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/moderation"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/profile"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/social"
	"moviesdiary/internal/usecase/user"
	"moviesdiary/internal/usecase/watchlist"
	"moviesdiary/internal/usecase/wrapup"
)

// Deps are the pages' collaborators: the same use cases the REST API calls.
type Deps struct {
	Log *slog.Logger
	// BaseURL is the public URL of the instance; https makes the cookies Secure.
	BaseURL string
	// RefreshTTL is how long the session cookies live (the refresh token's lifetime).
	RefreshTTL time.Duration
	// AuthRateLimit is the per-IP budget per minute of the log-in and registration forms;
	// default AuthRateLimitDefault.
	AuthRateLimit int
	// TrustedProxies may name the client in X-Forwarded-For for that limit (TRUSTED_PROXIES).
	TrustedProxies []netip.Prefix
	// Authenticate checks an access token and that its user still exists.
	Authenticate func(ctx context.Context, token string) (uuid.UUID, error)
	// Observe counts each request the pages answer (route pattern, method, status, duration);
	// nil for none. Requests handed to next are next's to count.
	Observe endpoint.Observer

	Auth       *auth.Service
	Reviews    *review.Service
	Movies     *movie.Service
	Watchlist  *watchlist.Service
	Social     *social.Service
	WrapUps    *wrapup.Service
	Users      *user.Service
	Search     *search.Service
	Profiles   *profile.Service
	Goals      *goal.Service
	Moderation *moderation.Service
	// Integrations are the webhook tokens and the watch queue; Imports the diary import (nil
	// leaves its form out); Export the diary download.
	Integrations *integration.Service
	Imports      *importer.Service
	Export       *review.Exporter
	// SignOn is single sign-on with an OpenID provider (sso.go); nil for none.
	SignOn *SignOn
	// Archive is the account archive's download and import; nil leaves them out.
	Archive *archive.Service

	// Finder searches the metadata provider (TMDb) for the log form's results; nil, or one
	// without a provider, lists this instance's films only.
	Finder *movie.Finder
	// ProviderImageURL is the provider's image CDN (TMDB_IMAGE_URL, "…/t/p"), where the search
	// results' posters come from; empty shows them without posters.
	ProviderImageURL string

	// RootToClient leaves "/" to next (WEB_CLIENT_DIR's single-page client); the pages keep
	// their other paths.
	RootToClient bool
	// ActorPages serves GET /users/{id} (a user's page) itself, for a server without the
	// federation routes; with them, the actor route hands browsers to ProfilePage.
	ActorPages bool
}

// AuthRateLimitDefault matches the REST API's per-IP budget of its auth routes.
const AuthRateLimitDefault = 60

// Server renders the pages.
type Server struct {
	Deps
	log       *slog.Logger
	limiter   *endpoint.IPLimiter
	refresher *refresher
	pages     pages
	secure    bool // secure: BASE_URL is https, so cookies are Secure and __Host- prefixed
	csp       string
}

// New parses the embedded templates and builds the server.
func New(d Deps) (*Server, error) {
	d.Log = cmp.Or(d.Log, slog.Default())
	d.BaseURL = strings.TrimRight(d.BaseURL, "/")
	d.RefreshTTL = cmp.Or(d.RefreshTTL, auth.RefreshTTLDefault)
	d.ProviderImageURL = strings.TrimRight(d.ProviderImageURL, "/")
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Server{Deps: d, log: d.Log, pages: p, secure: strings.HasPrefix(d.BaseURL, "https://"), csp: contentPolicyFor(d.ProviderImageURL),
		limiter: endpoint.NewIPLimiter(cmp.Or(d.AuthRateLimit, AuthRateLimitDefault))}
	if d.Auth != nil {
		s.refresher = newRefresher(d.Auth.Refresh)
	}
	return s, nil
}

// Handler serves the pages and hands any other request to next, but a browser's request that
// neither the pages nor next route gets an HTML 404 or 405 page (unmatched.go).
func (s *Server) Handler(next http.Handler) http.Handler {
	r := chi.NewRouter()
	// chi may call either for a path it does not have at all, so unmatched tells 404 from 405
	// itself.
	unmatched := s.unmatched(r, next)
	r.NotFound(unmatched.ServeHTTP)
	r.MethodNotAllowed(unmatched.ServeHTTP)
	// Every request the pages answer themselves is logged and counted by its route pattern,
	// like the API's; the ones handed to next are next's to log.
	assets := r.With(middleware.RequestID, s.accessLog)
	assets.Get("/static/style.css", serveCSS)
	assets.Method(http.MethodGet, "/static/icon.svg", iconAsset)
	assets.Method(http.MethodGet, "/favicon.ico", iconAsset)
	assets.Method(http.MethodGet, "/manifest.webmanifest", manifestAsset)
	r.Group(func(r chi.Router) {
		r.Use(middleware.RequestID, s.accessLog, s.recoverer, s.headers)
		s.routes(r)
	})
	return r
}

// accessLog logs and counts a request the pages answer (endpoint.AccessLog).
func (s *Server) accessLog(next http.Handler) http.Handler {
	return endpoint.AccessLog(s.log, s.Observe)(next)
}

// recoverer turns a panic in a page into a logged 500 page, never a dropped connection or a
// stack trace in a body.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.fail(w, r, visit{}, fmt.Errorf("page panicked: %v", p))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// ProfilePage is a user's page for GET /users/{id} (the actor URL a browser opens).
func (s *Server) ProfilePage() http.Handler {
	return s.headers(s.page(anyone, s.profile))
}
