package web_test

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestEveryInputIsLabelledAndEveryFormCarriesCSRF parses every main page as the admin sees it
// (so the admin's forms are there too): each visible input, select and textarea has a label (a
// <label for> naming its id, or a <label> around it, or an aria-label), ids are unique, and each
// POST form carries the CSRF field.
func TestEveryInputIsLabelledAndEveryFormCarriesCSRF(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := seedDiary(t, b, 5, 100, 500)
	pages := benchPages(b)
	pages["blocked"], pages["domains"], pages["log-chosen"] = "/blocked", "/admin/domains", "/log"
	pages["accounts"] = "/admin/accounts"
	pages["log-search"], pages["diary-list"], pages["watchlist-list"] = "/log/search?title=number", "/diary?view=list", "/watchlist?view=list"
	visitor := b.browser()
	for name, path := range pages {
		checkForms(t, name, mustStatus(t, ann.get(path), http.StatusOK).body)
	}
	for _, path := range []string{"/login", "/register", "/", "/search"} {
		checkForms(t, "visitor "+path, mustStatus(t, visitor.get(path), http.StatusOK).body)
	}
}

func checkForms(t *testing.T, page, body string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	attr := func(n *html.Node, key string) string {
		for _, a := range n.Attr {
			if a.Key == key {
				return a.Val
			}
		}
		return ""
	}
	labelled := map[string]bool{}
	ids := map[string]int{}
	var fields []*html.Node
	var walk func(n *html.Node, inLabel bool)
	walk = func(n *html.Node, inLabel bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "label":
				labelled[attr(n, "for")] = true
				inLabel = true
			case "input", "select", "textarea":
				switch attr(n, "type") {
				case "hidden", "submit", "button":
				default:
					if !inLabel && attr(n, "aria-label") == "" {
						fields = append(fields, n)
					}
				}
			case "form":
				if strings.EqualFold(attr(n, "method"), "post") && !strings.Contains(renderNode(n), `name="csrf"`) {
					t.Errorf("%s: the form posting to %s has no CSRF field", page, attr(n, "action"))
				}
			}
			if id := attr(n, "id"); id != "" {
				ids[id]++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLabel)
		}
	}
	walk(doc, false)
	for _, f := range fields {
		if id := attr(f, "id"); id == "" || !labelled[id] {
			t.Errorf("%s: a %s named %q has no label", page, f.Data, attr(f, "name"))
		}
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%s: id %q used %d times", page, id, n)
		}
	}
}

func renderNode(n *html.Node) string {
	var sb strings.Builder
	_ = html.Render(&sb, n)
	return sb.String()
}
