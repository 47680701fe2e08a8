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
		{method: get, pattern: "/feed.rss", summary: "The instance's newest reviews (RSS 2.0)", handle: s.instanceFeed(rssFormat),
			produces: rssType, status: 200},
		{method: get, pattern: "/feed.atom", summary: "The instance's newest reviews (Atom)", handle: s.instanceFeed(atomFormat),
			produces: atomType, status: 200},
		{method: get, pattern: "/users/{id}/feed.rss", summary: "A user's newest reviews (RSS 2.0)", handle: s.userFeed(rssFormat),
			produces: rssType, status: 200, errors: []int{400, 404}},
		{method: get, pattern: "/users/{id}/feed.atom", summary: "A user's newest reviews (Atom)", handle: s.userFeed(atomFormat),
			produces: atomType, status: 200, errors: []int{400, 404}},
	}
}
