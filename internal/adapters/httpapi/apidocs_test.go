package httpapi_test

import (
	"html"
	"strings"
	"testing"
)

// TestAPIDocsPageListsEveryOperation: /api/docs, beside /openapi.json, is an HTML page for
// people with one section per operation of the document, its parameters and access, built on
// the server: no script, no stylesheet or font from elsewhere.
func TestAPIDocsPageListsEveryOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var doc struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	b.must(200, req{method: "GET", path: "/openapi.json"}).json(t, &doc)
	page := b.must(200, req{method: "GET", path: "/api/docs"})
	if ct := page.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	body := string(page.body)
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			n++
			want := "<h2><code>" + strings.ToUpper(method) + " " + path + "</code></h2>"
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %s", want)
			}
			if s, _ := op["summary"].(string); !strings.Contains(html.UnescapeString(body), "<p>"+s+"</p>") {
				t.Errorf("the page lacks %s %s's summary %q", method, path, s)
			}
		}
	}
	if got := strings.Count(body, "<section id="); got != n {
		t.Errorf("%d sections, want one per operation (%d)", got, n)
	}
	for _, want := range []string{`<a href="/openapi.json">`, "<code>id</code> (path)", "<dd>a bearer token</dd>",
		"<dd>an admin&#39;s bearer token</dd>", "<code>limit</code> (query)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, unwanted := range []string{"<script", "<link", "src=", "https://", "http://"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("the page has %q: it must need nothing from elsewhere", unwanted)
		}
	}
}
