package web_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestFormsKeepTheTextRule: a form field with a control character is refused with 400 naming
// the field, as the REST API refuses it (domain.CheckText); a comment may hold line breaks.
func TestFormsKeepTheTextRule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.register("ann")
	form := func(title, comment string) url.Values {
		return url.Values{"title": {title}, "year": {"1995"}, "rating": {"4"}, "comment": {comment},
			"watched_at": {"2024-03-01"}, "medium": {"cinema"}}
	}
	p := mustStatus(t, br.post("/log", form("He\x00at", "")), http.StatusBadRequest)
	contains(t, p, "title: control character U&#43;0000 is not allowed")
	p = mustStatus(t, br.post("/log", form("Heat", "a bell\x07")), http.StatusBadRequest)
	contains(t, p, "comment: control character U&#43;0007 is not allowed")
	mustStatus(t, br.post("/log", form("Heat", "two\r\nlines\tand a tab")), http.StatusSeeOther)
}
