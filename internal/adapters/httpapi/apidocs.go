package httpapi

import (
	"bytes"
	"html/template"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// apiDocsPage is the API's reference for people: every operation of the OpenAPI document
// (routes(), the document's own source), rendered on the server as plain HTML: no script, no
// stylesheet, nothing fetched from a CDN.
var apiDocsPage = template.Must(template.New("api").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>moviesdiary API</title>
</head>
<body>
<h1>moviesdiary API</h1>
<p>{{.Description}} Authenticated operations take <code>Authorization: Bearer &lt;access token&gt;</code>
from <code>POST /api/v1/auth/login</code>. The machine-readable description, with every request and
response schema, is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<p>{{len .Operations}} operations.</p>
<nav aria-label="Operations"><ul>{{range .Operations}}<li><a href="#{{.ID}}"><code>{{.Method}} {{.Path}}</code></a> {{.Summary}}</li>{{end}}</ul></nav>
{{range .Operations}}<section id="{{.ID}}">
<h2><code>{{.Method}} {{.Path}}</code></h2>
<p>{{.Summary}}</p>
<dl>
<dt>Access</dt><dd>{{.Access}}</dd>
{{with .Params}}<dt>Parameters</dt><dd><ul>{{range .}}<li><code>{{.Name}}</code> ({{.In}}){{with .Description}}: {{.}}{{end}}</li>{{end}}</ul></dd>{{end}}
{{with .Request}}<dt>Request body</dt><dd><code>application/json</code>: {{.}}</dd>{{end}}
<dt>Answers</dt><dd>{{.Status}}{{with .Produces}} (<code>{{.}}</code>){{end}}{{with .Errors}}; errors {{.}}{{end}}</dd>
</dl>
</section>{{end}}
</body>
</html>
`))

// apiDocsOperation is one operation as the page lists it.
type apiDocsOperation struct {
	ID, Method, Path, Summary, Access, Request, Status, Produces, Errors string
	Params                                                               []apiDocsParam
}

type apiDocsParam struct{ Name, In, Description string }

// apiDocs serves the API's reference page, built once from the OpenAPI document's routes.
func (s *Server) apiDocs(w http.ResponseWriter, _ *http.Request) error {
	s.docPageOnce.Do(func() { s.docPage, s.docPageErr = s.renderAPIDocs() })
	if s.docPageErr != nil {
		return s.docPageErr
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.docPage)
	return nil
}

func (s *Server) renderAPIDocs() ([]byte, error) {
	var ops []apiDocsOperation
	for _, rt := range s.routes() {
		op := apiDocsOperation{ID: operationID(rt.method, rt.pattern), Method: rt.method, Path: rt.pattern, Summary: rt.summary,
			Access: "public", Produces: rt.produces, Status: strconv.Itoa(rt.status) + " " + http.StatusText(rt.status)}
		switch rt.access {
		case accessPublic:
		case accessAdmin:
			op.Access = "an admin's bearer token"
		default:
			op.Access = "a bearer token"
		}
		for _, m := range pathParam.FindAllStringSubmatch(rt.pattern, -1) {
			op.Params = append(op.Params, apiDocsParam{Name: m[1], In: "path"})
		}
		for _, q := range rt.query {
			op.Params = append(op.Params, apiDocsParam{Name: q.name, In: "query", Description: q.description})
		}
		if rt.request != nil {
			if props, ok := schemaOf(reflect.TypeOf(rt.request), inRequest)["properties"].(map[string]any); ok {
				names := make([]string, 0, len(props))
				for name := range props {
					names = append(names, name)
				}
				slices.Sort(names)
				op.Request = "fields " + strings.Join(names, ", ")
			} else {
				op.Request = "a JSON document"
			}
		}
		var errs []string
		for _, code := range append(rt.errors, http.StatusInternalServerError) {
			errs = append(errs, strconv.Itoa(code))
		}
		op.Errors = strings.Join(errs, ", ") + ` as {"error": "<message>"}`
		ops = append(ops, op)
	}
	var buf bytes.Buffer
	err := apiDocsPage.Execute(&buf, map[string]any{"Operations": ops,
		"Description": "Self-hosted federated movie diary: the REST API under /api/v1, the feeds, health and readiness."})
	return buf.Bytes(), err
}
