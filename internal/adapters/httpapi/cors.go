package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// The CORS answer of /api/v1: what a browser client on another origin may send.
const (
	corsMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
	corsHeaders = "content-type, authorization, idempotency-key"
	// corsMaxAge lets a browser reuse a preflight answer for ten minutes.
	corsMaxAge = "600"
)

// cors lets browser clients served from other origins call /api/v1 (the original client's
// development set-up serves it from its own dev server). With no Deps.CORSOrigins any origin is
// allowed, without credentials; with a list exactly those origins are, with credentials. A
// preflight (OPTIONS with Access-Control-Request-Method) is answered 204 here, before routing,
// whether or not the origin is allowed: a refused origin just gets no allow headers. Other paths
// (federation, images, the hosted client) are left alone.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if !strings.HasPrefix(r.URL.Path, "/api/v1/") || origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		allowed := s.CORSOrigins == nil || slices.Contains(s.CORSOrigins, origin)
		if allowed {
			if s.CORSOrigins == nil {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
			}
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if allowed {
				h.Set("Access-Control-Allow-Methods", corsMethods)
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", corsMaxAge)
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if allowed {
			// The export's file name, for a client that reads it.
			h.Set("Access-Control-Expose-Headers", "Content-Disposition")
		}
		next.ServeHTTP(w, r)
	})
}
