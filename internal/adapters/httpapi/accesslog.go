package httpapi

import (
	"cmp"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/endpoint"
)

// accessLog writes the API's access log line of each request (endpoint.AccessLog). The API
// counts its requests per route itself (Server.endpoint, observeUnmatched), under the route's
// method, so a HEAD answered by a GET route counts as that route's.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return endpoint.AccessLog(s.log, nil)(next)
}

// observeUnmatched counts a request the router answered itself (404, 405) under
// endpoint.UnmatchedRoute, so scanners and broken clients show in the HTTP metrics too.
func (s *Server) observeUnmatched(h http.HandlerFunc) http.HandlerFunc {
	if s.Observe == nil {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		h(ww, r)
		s.Observe(endpoint.UnmatchedRoute, r.Method, cmp.Or(ww.Status(), http.StatusOK), time.Since(start))
	}
}
