package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// TestOpenAPIDocumentsEveryRoute walks the router and the served document: every route the
// router serves is documented, and every documented operation is served.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	b.must(200, req{method: "GET", path: "/openapi.json"}).json(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			if _, ok := op["responses"]; !ok {
				t.Errorf("%s %s has no responses", method, path)
			}
		}
	}
	routes, ok := b.handler.(chi.Routes)
	if !ok {
		t.Fatalf("the handler is a %T, not a chi router", b.handler)
	}
	var served []string
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served = append(served, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("router and document differ:\nonly served:     %v\nonly documented: %v",
			minus(served, documented), minus(documented, served))
	}
	if len(served) < 40 {
		t.Errorf("only %d routes served; the walk missed some", len(served))
	}
	post := doc.Paths["/api/v1/reviews"]["post"]
	if _, ok := post["requestBody"]; !ok {
		t.Error("POST /api/v1/reviews documents no request body")
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
