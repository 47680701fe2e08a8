package httpapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// unmatchedRoute is the route label of a request no route matched (a 404 or 405 of the router),
// in the access log and the HTTP metrics: one series for every unknown path, never the path.
const unmatchedRoute = "unmatched"

// accessLog writes one line per request once it is answered: method, route pattern (never the
// raw path or query, which can carry ids and tokens), status, bytes, duration and request id. No
// header or body is logged. Liveness, readiness and metrics probes log at debug, so a
// healthcheck every few seconds does not bury the traffic.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := unmatchedRoute
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		level := slog.LevelInfo
		switch route {
		case "/health", "/ready", "/metrics":
			level = slog.LevelDebug
		}
		s.log.LogAttrs(r.Context(), level, "http request",
			slog.String("method", r.Method),
			slog.String("route", route),
			slog.Int("status", cmp.Or(ww.Status(), http.StatusOK)),
			slog.Int("bytes", ww.BytesWritten()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", middleware.GetReqID(r.Context())),
		)
	})
}

// observeUnmatched counts a request the router answered itself (404, 405) under unmatchedRoute,
// so scanners and broken clients show in the HTTP metrics too.
func (s *Server) observeUnmatched(h http.HandlerFunc) http.HandlerFunc {
	if s.Observe == nil {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		h(ww, r)
		s.Observe(unmatchedRoute, r.Method, cmp.Or(ww.Status(), http.StatusOK), time.Since(start))
	}
}
