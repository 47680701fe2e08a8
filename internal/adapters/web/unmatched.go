package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/endpoint"
)

// routeMethods are the methods a path is tried with to tell 405 from 404.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// unmatched handles a request none of the pages' routes matches. A browser's request that
// next's routes do not match either gets an HTML error page: 405 when the pages or next have
// the path with another method, else 404. Everything else, API clients above all, goes to
// next, which keeps answering its JSON 404 and 405. A next that cannot tell its routes (not
// chi.Routes) gets every request.
func (s *Server) unmatched(pages chi.Routes, next http.Handler) http.Handler {
	routes, _ := next.(chi.Routes)
	page := middleware.RequestID(s.accessLog(s.recoverer(s.headers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := visit{csrf: s.csrfToken(w, r)}
		var err error
		if v.me, err = s.viewer(w, r); err != nil {
			s.fail(w, r, v, err)
			return
		}
		st, msg := http.StatusNotFound, "There is no page here. The link may be old or mistyped."
		if matchesOther(pages, r) || matchesOther(routes, r) {
			st, msg = http.StatusMethodNotAllowed, "This page cannot be used that way."
		}
		s.fail(w, r, v, endpoint.Fail(st, msg))
	})))))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if routes == nil || !prefersHTML(r.Header.Get("Accept")) || matches(routes, r, r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// matches reports whether routes has a route for method and the request's path (HEAD is
// answered by GET's route).
func matches(routes chi.Routes, r *http.Request, method string) bool {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	return routes.Match(chi.NewRouteContext(), method, path)
}

// matchesOther reports whether routes has the request's path with another method.
func matchesOther(routes chi.Routes, r *http.Request) bool {
	for _, m := range routeMethods {
		if m != r.Method && matches(routes, r, m) {
			return true
		}
	}
	return false
}

// prefersHTML reports whether an Accept header names text/html (or XHTML) with a weight at
// least that of application/json: a browser's navigation, not an API client (which sends JSON
// or nothing).
func prefersHTML(accept string) bool {
	html, json := -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(part, ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(val, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/html", "application/xhtml+xml":
			html = max(html, q)
		case "application/json", "application/activity+json", "application/ld+json":
			json = max(json, q)
		}
	}
	return html > 0 && html >= json
}
