package endpoint

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// UnmatchedRoute is the route label of a request no route matched (a 404 or 405 of a router), in
// the access log and the HTTP metrics: one series for every unknown path, never the path.
const UnmatchedRoute = "unmatched"

// Observer records one answered request: its route pattern, method, status and duration.
type Observer func(route, method string, status int, took time.Duration)

// RoutePattern is the chi route pattern that answered r (/review/{id}/edit), UnmatchedRoute
// when none did. Read it once the request is answered: the pattern is known only after routing.
func RoutePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return UnmatchedRoute
}

// AccessLog is the middleware that writes one line per request once it is answered: method,
// route pattern (never the raw path or query, which can carry ids and tokens), status, bytes,
// duration and request id (put middleware.RequestID before it). No header or body is logged.
// Liveness, readiness and metrics probes log at debug, so a healthcheck every few seconds does
// not bury the traffic. A non-nil observe also counts each request under the same route.
func AccessLog(log *slog.Logger, observe Observer) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			next.ServeHTTP(ww, r)
			took := time.Since(start)
			route, status := RoutePattern(r), cmp.Or(ww.Status(), http.StatusOK)
			if observe != nil {
				observe(route, r.Method, status, took)
			}
			level := slog.LevelInfo
			switch route {
			case "/health", "/ready", "/metrics":
				level = slog.LevelDebug
			}
			log.LogAttrs(r.Context(), level, "http request",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Int("bytes", ww.BytesWritten()),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000),
				slog.String("request_id", middleware.GetReqID(r.Context())),
			)
		})
	}
}
