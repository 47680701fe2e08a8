// Package httpapi is the HTTP surface of the server: the chi router, its error envelope and the
// handlers that translate requests into use-case calls.
package httpapi

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
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

// Readiness reports whether the service can take traffic: the database answers and its schema is
// fully migrated.
type Readiness func(ctx context.Context) error

// AuthRateLimitDefault is how many auth requests one IP may make per minute.
const AuthRateLimitDefault = 60

// Deps are the server's collaborators; cmd/server builds them.
type Deps struct {
	Log   *slog.Logger
	Ready Readiness
	// BaseURL is the public URL of the instance (actor URLs are BaseURL/users/{id}).
	BaseURL string
	// Verify checks a bearer token and returns its user.
	Verify func(token string) (uuid.UUID, error)
	// Authenticate, when set, replaces Verify: it also checks that the token's user still exists.
	Authenticate func(ctx context.Context, token string) (uuid.UUID, error)
	// AuthRateLimit is the per-IP budget of the auth routes per minute; default
	// AuthRateLimitDefault.
	AuthRateLimit int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client for the
	// per-IP limit (TRUSTED_PROXIES); empty: the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// WebhookRateLimit is the per-IP budget of the media-server webhooks per minute, apart from
	// every other; default a quarter of AuthRateLimit (15).
	WebhookRateLimit int
	// Metrics serves GET /metrics; nil leaves the route out.
	Metrics http.Handler
	// Observe records each routed request (route pattern, method, status, duration); nil for none.
	Observe func(route, method string, status int, took time.Duration)

	Auth      *auth.Service
	Reviews   *review.Service
	Export    *review.Exporter
	Feeds     *review.Feeds
	Movies    *movie.Service
	Watchlist *watchlist.Service
	Social    *social.Service
	WrapUps   *wrapup.Service
	Users     *user.Service
	Search    *search.Service
	// Profiles, Goals and Moderation serve the own profile, the yearly goals and the admin's
	// domain blocks.
	Profiles   *profile.Service
	Goals      *goal.Service
	Moderation *moderation.Service
	// Integrations serves the webhooks, webhook tokens and the watch queue.
	Integrations *integration.Service
	// Imports is the diary import (/api/v1/import); nil leaves its routes out.
	Imports *importer.Service
	// Archive is the account archive (/api/v1/account/archive); nil leaves its routes out.
	Archive *archive.Service
	// Images serves GET /images/{key}; nil answers 404.
	Images ImageStore

	// CORSOrigins are the browser origins allowed to call /api/v1 with credentials; nil allows
	// any origin without credentials (cors.go).
	CORSOrigins []string
	// WebClient is a built web client (index.html at its top) served at /app/; nil for none,
	// and / then answers a short page about the server (webclient.go, home.go).
	WebClient fs.FS

	// Routes are served beside the API's own (the federation routes); nil for none.
	Routes []endpoint.Route

	// DataVersion, when set, changes whenever anything commits to the database; the hot public
	// reads are cached until it does (cache.go).
	DataVersion func(ctx context.Context) (int64, error)
}

// Server holds the HTTP handlers' dependencies.
type Server struct {
	Deps
	log     *slog.Logger
	limiter *endpoint.IPLimiter
	// webhookLimiter is the webhooks' own budget.
	webhookLimiter *endpoint.IPLimiter
	docCache
	// cache serves the hot public documents until the next commit (cache.go); nil without
	// Deps.DataVersion.
	cache *responseCache
	// admit bounds the reads served at once (admission.go).
	admit *admission
}

// New builds the server.
func New(d Deps) *Server {
	d.Log = cmp.Or(d.Log, slog.Default())
	d.BaseURL = strings.TrimRight(d.BaseURL, "/")
	authLimit := cmp.Or(d.AuthRateLimit, AuthRateLimitDefault)
	return &Server{Deps: d, log: d.Log, limiter: endpoint.NewIPLimiter(authLimit),
		webhookLimiter: endpoint.NewIPLimiter(cmp.Or(d.WebhookRateLimit, webhookRateLimitDefault(authLimit))),
		cache:          newResponseCache(d.DataVersion), admit: newAdmission(readSlots())}
}

// Handler is the router with every route of routes().
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	// The client address is the TCP peer: X-Forwarded-For is trusted only from TrustedProxies
	// (endpoint.ClientIP), so it cannot be forged to dodge the per-IP rate limit.
	// GetHead answers HEAD with the GET route (HEAD /health for load balancers).
	r.Use(middleware.RequestID, s.accessLog, s.recoverer, limitBody, middleware.GetHead)
	r.Use(s.securityHeaders) // headers.go
	r.Use(s.cors)
	r.NotFound(s.observeUnmatched(func(w http.ResponseWriter, _ *http.Request) { writeError(w, http.StatusNotFound, "not found") }))
	r.MethodNotAllowed(s.observeUnmatched(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
	}))
	for _, rt := range s.routes() {
		r.Method(rt.method, rt.pattern, s.endpoint(rt))
	}
	return r
}

// endpoint wraps a route's handler with its rate limit and authentication, and writes its error.
func (s *Server) endpoint(rt route) http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.limited && !s.limiter.Allow(endpoint.ClientIP(r, s.TrustedProxies)) {
			writeError(w, http.StatusTooManyRequests, "too many requests")
			return
		}
		if rt.access != accessPublic {
			var err error
			if r, err = s.authorize(r, rt); err != nil { // access_tokens.go
				s.fail(w, r, err)
				return
			}
		}
		if err := rt.handle(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
	cached := s.cache.wrap(rt, s.admit.wrap(rt, h))
	if s.Observe == nil {
		return cached
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		cached.ServeHTTP(ww, r)
		s.Observe(rt.pattern, rt.method, cmp.Or(ww.Status(), http.StatusOK), time.Since(start))
	})
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

func (s *Server) readiness(w http.ResponseWriter, r *http.Request) error {
	if err := s.Ready(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "not ready", "error", err)
		msg := "not ready; the server's log says why"
		var full *domain.StorageFullError
		var nr *notReady
		var un *domain.UnavailableError
		switch {
		case errors.As(err, &full):
			msg = "the " + full.Storage + " is full"
		case errors.As(err, &nr):
			msg = nr.what
		case errors.As(err, &un):
			msg = "the " + un.What + " does not answer"
		}
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": msg})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

// recoverer turns a panic into a logged 500 with the JSON envelope, never a stack trace in a body.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "handler panicked", "panic", p,
					"request_id", middleware.GetReqID(r.Context()), "path", r.URL.Path)
				writeError(w, http.StatusInternalServerError, "internal server error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// notReady is a readiness failure: what is down, safe to answer, and its cause, for the log.
type notReady struct {
	what  string
	cause error
}

func (e *notReady) Error() string {
	if e.cause == nil {
		return e.what
	}
	return e.what + ": " + e.cause.Error()
}

func (e *notReady) Unwrap() error { return e.cause }

// NotReady is the error a Readiness check returns: GET /ready answers what (never the cause,
// which may carry connection details) and logs both.
func NotReady(what string, cause error) error { return &notReady{what: what, cause: cause} }
