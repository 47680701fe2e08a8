package httpapi_test

import (
	"testing"
	"time"
)

// TestInputHygiene: a control character in a text field, a watched_at outside 1888 .. now + 1 day
// and a body that is not valid UTF-8 are 400s with the envelope, and nothing is stored; a
// comment keeps its newlines and tabs.
func TestInputHygiene(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	post := func(body any) req { return req{method: "POST", path: "/api/v1/reviews", token: a.token, body: body} }
	review := func(title, comment, watched string) map[string]any {
		m := map[string]any{"manual_title": title, "manual_release_year": 1995, "rating": 4, "watched_at": watched}
		if comment != "" {
			m["comment"] = comment
		}
		return m
	}
	tomorrow := time.Now().UTC().Add(23 * time.Hour).Format("2006-01-02T15:04:05")
	for _, c := range []struct {
		name string
		r    req
	}{
		{"NUL in a title", post(review("He\x00at", "", "2024-03-01"))},
		{"escape sequence in a title", post(review("Heat\x1b[31m", "", "2024-03-01"))},
		{"newline in a title", post(review("Heat\nII", "", "2024-03-01"))},
		{"NUL in a comment", post(review("Heat", "great\x00", "2024-03-01"))},
		{"DEL in a comment", post(review("Heat", "great\x7f", "2024-03-01"))},
		{"C1 control in a comment", post(review("Heat", "great\u0085", "2024-03-01"))},
		{"escaped NUL", post(`{"manual_title":"He\u0000at","manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`)},
		{"watched in 9999", post(review("Heat", "", "9999-12-31"))},
		{"watched two days ahead", post(review("Heat", "", time.Now().UTC().Add(49*time.Hour).Format("2006-01-02T15:04:05")))},
		{"watched before films", post(review("Heat", "", "1887-12-31"))},
		{"invalid UTF-8", post([]byte(`{"manual_title":"He` + "\xff\xfe" + `at","manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`))},
		{"register: NUL in a username", req{method: "POST", path: "/api/v1/auth/register",
			body: map[string]string{"email": "bob@example.test", "username": "bo\x00b", "password": "password-bob"}}},
	} {
		r := b.do(c.r)
		if r.status != 400 {
			t.Errorf("%s: %d %s, want 400", c.name, r.status, r.body)
			continue
		}
		r.errorMessage(t)
	}
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "0" {
		t.Errorf("%s reviews stored from bad input, want 0", n)
	}
	var out struct {
		Review struct {
			Comment string `json:"comment"`
		} `json:"review"`
	}
	b.must(201, post(review("Heat", "line one\r\n\tline two", tomorrow))).json(t, &out)
	if out.Review.Comment != "line one\r\n\tline two" {
		t.Errorf("comment = %q, want its newlines and tab kept", out.Review.Comment)
	}
	b.must(201, post(review("Roundhay Garden Scene", "", "1888-10-14")))
	id := b.scalar(`SELECT id FROM reviews LIMIT 1`)
	b.must(400, req{method: "PATCH", path: "/api/v1/reviews/" + id, token: a.token,
		body: map[string]any{"watched_at": "9999-12-31"}}).errorMessage(t)
}
