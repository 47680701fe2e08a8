package httpapi

import (
	"net/http"
	"strings"
)

// hstsMaxAge is how long a browser that saw the instance over HTTPS keeps to HTTPS (two years,
// the HSTS preload list's minimum being one).
const hstsMaxAge = "max-age=63072000; includeSubDomains"

// securityHeaders sets the headers every response carries, before the handler runs (a handler
// may still override one, as the image route does with its own caching):
//   - X-Content-Type-Options: nosniff, so a browser never runs an upload or a JSON body as script;
//   - Referrer-Policy: no-referrer, so ids in our URLs never leak to other sites;
//   - X-Frame-Options: DENY and CSP frame-ancestors 'none', so no page of ours (the web client's
//     HTML included) can be framed for clickjacking;
//   - Strict-Transport-Security when BASE_URL is https (over plain HTTP it would be ignored, and
//     it would lock a local instance out of http);
//   - Cache-Control: no-store on a request that carries credentials and on the auth routes,
//     whose bodies are tokens: a shared cache or the browser's disk must not keep them.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	hsts := strings.HasPrefix(s.BaseURL, "https://")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		if hsts {
			h.Set("Strict-Transport-Security", hstsMaxAge)
		}
		if r.Header.Get("Authorization") != "" || strings.HasPrefix(r.URL.Path, "/api/v1/auth/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}
