package httpapi

import (
	"strings"
	"testing"
)

// TestCheckText: a string is judged by the nearest field above it, arrays taking their field's;
// only prose fields may hold newlines and tabs; field names may hold no control character.
func TestCheckText(t *testing.T) {
	t.Parallel()
	for body, wantField := range map[string]string{
		`{"title": "Heat", "comment": "a\nb\tc\r\n", "n": 4, "ok": true, "x": null}`: "",
		`{"reviews": [{"comment": "a\nb"}, {"comment": "c"}], "title": "x"}`:         "",
		`{"comment": {"title": "a\nb"}}`:                                             "title",
		`{"tags": ["fine", "bad\u0001"]}`:                                            "tags",
		`["a\nb"]`:                                                                   "value",
		`{"ti\u0000tle": "x"}`:                                                       "field name",
		`{"comment": "x", "title": "\u009b"}`:                                        "title",
		`{"a": [[{"b": "c"}], "d\u007f"]}`:                                           "a",
	} {
		err := checkText([]byte(body))
		switch {
		case wantField == "" && err != nil:
			t.Errorf("%s: %v, want accepted", body, err)
		case wantField != "" && (err == nil || !strings.HasPrefix(err.Error(), wantField+":")):
			t.Errorf("%s: %v, want refused naming %q", body, err, wantField)
		}
	}
}
