package httpapi

// extraRoutes turns Deps.Routes (another adapter's, the federation routes) into routes: their
// failures go through fail like the API's own.
func (s *Server) extraRoutes() []route {
	out := make([]route, 0, len(s.Routes))
	for _, rt := range s.Routes {
		out = append(out, route{method: rt.Method, pattern: rt.Pattern, summary: rt.Summary, status: rt.Status,
			errors: rt.Errors, response: map[string]any{}, handle: handlerFunc(rt.Handle)})
	}
	return out
}
