package httpapi

import "net/http"

// Route is a route another adapter serves (the ActivityPub routes): mounted on the router and
// listed in the OpenAPI document like the API's own. Its handler writes its own answers.
type Route struct {
	Method, Pattern, Summary string
	Handler                  http.HandlerFunc
	Status                   int   // Status is the success status.
	Errors                   []int // Errors are the documented failure statuses besides 500.
}

// extraRoutes turns Deps.Routes into routes.
func (s *Server) extraRoutes() []route {
	out := make([]route, 0, len(s.Routes))
	for _, rt := range s.Routes {
		h := rt.Handler
		out = append(out, route{method: rt.Method, pattern: rt.Pattern, summary: rt.Summary, status: rt.Status,
			errors: rt.Errors, response: map[string]any{},
			handle: func(w http.ResponseWriter, r *http.Request) error { h(w, r); return nil }})
	}
	return out
}
