package httpapi

import "net/http"

// webRoutes are the routes for browsers rather than API clients: the home page, the hosted web
// client and the review feeds.
func (s *Server) webRoutes() []route {
	const get = http.MethodGet
	return []route{
		{method: get, pattern: "/", summary: "Home: redirects to the hosted web client, or a short page about this server",
			handle: s.home, produces: "text/html", status: 200, errors: []int{302}},
		{method: get, pattern: "/app", summary: "Redirect to /app/", handle: s.appRedirect, status: 301},
		{method: get, pattern: "/app/*", summary: "The hosted web client (index.html for its own routes)",
			handle: s.webClient, produces: "text/html", status: 200, errors: []int{304, 404}},
	}
}
