package httpapi

import (
	"html/template"
	"net/http"
)

// home answers GET /: the hosted web client when there is one, else a short page saying what
// this server is and where its API is described.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	if s.WebClient != nil {
		http.Redirect(w, r, webClientPrefix, http.StatusFound)
		return nil
	}
	return s.homePage(w, http.StatusOK)
}

var homeTemplate = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>moviesdiary</title>
<link rel="alternate" type="application/rss+xml" title="Recent reviews (RSS)" href="{{.Base}}/feed.rss">
<link rel="alternate" type="application/atom+xml" title="Recent reviews (Atom)" href="{{.Base}}/feed.atom">
</head>
<body>
<h1>moviesdiary</h1>
<p>A self-hosted, federated movie diary. This server speaks a JSON REST API under
<code>{{.Base}}/api/v1</code> and ActivityPub for federation; no web client is hosted here.</p>
<ul>
<li>API description (OpenAPI 3.1): <a href="{{.Base}}/openapi.json">{{.Base}}/openapi.json</a></li>
<li>Recent public reviews: <a href="{{.Base}}/feed.rss">RSS</a>, <a href="{{.Base}}/feed.atom">Atom</a></li>
<li>Health: <a href="{{.Base}}/health">{{.Base}}/health</a></li>
</ul>
</body>
</html>
`))

func (s *Server) homePage(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	return homeTemplate.Execute(w, struct{ Base string }{s.BaseURL})
}
