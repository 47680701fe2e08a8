package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// layout is how a list of films is shown: a grid of posters (the default) or the list with the
// reviews' text, chosen by ?view=list. The choice lives in the links, not in a cookie or a
// script: the toggle's links, the pager's (which keep the query) and the list's own forms carry
// it, so it holds while a person pages or sorts and a shared link shows what they saw.
type layout struct {
	List bool
	// GridURL and ListURL are this page in either layout, its other parameters kept (the page
	// number too: both show the same items).
	GridURL, ListURL string
}

// layoutOf reads the request's layout.
func layoutOf(r *http.Request) layout {
	q := r.URL.Query()
	l := layout{List: q.Get("view") == "list"}
	link := func(list bool) string {
		v := url.Values{}
		for k, vs := range q {
			if k != "view" && k != "done" {
				v[k] = vs
			}
		}
		if list {
			v.Set("view", "list")
		}
		if len(v) == 0 {
			return r.URL.Path
		}
		return r.URL.Path + "?" + v.Encode()
	}
	l.GridURL, l.ListURL = link(false), link(true)
	return l
}

// posterSrcset is a poster's srcset for a grid card: its w185 and w342 thumbnails by width, so a
// browser picks the one its density needs; "" when the image has no thumbnails (a remote URL,
// no poster) and src alone says it.
func posterSrcset(p *string) string {
	small, large := thumbURL(p, 185), thumbURL(p, 342)
	if small == "" || small == large {
		return ""
	}
	return small + " 185w, " + large + " 342w"
}

// initials are a name's placeholder for a missing photo: the first letter of its first and last
// words ("Amy Adams" → "AA", "Cher" → "C").
func initials(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return "?"
	}
	first, _ := utf8.DecodeRuneInString(words[0])
	out := string(unicode.ToUpper(first))
	if len(words) > 1 {
		last, _ := utf8.DecodeRuneInString(words[len(words)-1])
		out += string(unicode.ToUpper(last))
	}
	return out
}
