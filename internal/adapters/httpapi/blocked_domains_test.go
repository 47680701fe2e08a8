package httpapi_test

import (
	"context"
	"testing"
	"time"
)

func TestBlockedDomains(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin, bob := b.register("alice"), b.register("bob")
	const path = "/api/v1/admin/blocked-domains"
	ctx := context.Background()

	type block struct {
		Domain    string  `json:"domain"`
		Reason    *string `json:"reason"`
		BlockedAt string  `json:"blocked_at"`
	}
	list := func() []block {
		var out []block
		b.must(200, req{method: "GET", path: path, token: admin.token}).json(t, &out)
		return out
	}
	if got := list(); got == nil || len(got) != 0 {
		t.Fatalf("blocks of a new instance = %#v, want []", got)
	}
	since := b.lastEvent()
	b.must(201, req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": " Spam.Example. "}})
	b.must(201, req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": "https://bad.test/@troll", "reason": "trolls"}})
	got := list()
	if len(got) != 2 || got[0].Domain != "bad.test" || str(got[0].Reason) != "trolls" || got[1].Domain != "spam.example" || got[1].Reason != nil {
		t.Fatalf("blocks = %+v", got)
	}
	if _, err := time.Parse(time.RFC3339, got[0].BlockedAt); err != nil {
		t.Errorf("blocked_at %q: %v", got[0].BlockedAt, err)
	}
	// Blocking again replaces the reason.
	b.must(201, req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": "bad.test", "reason": "spam"}})
	if got := list(); len(got) != 2 || str(got[0].Reason) != "spam" {
		t.Errorf("blocks after a second block = %+v", got)
	}
	// What federation enforces: the host and its subdomains are blocked, others are not.
	for host, want := range map[string]bool{"spam.example": true, "media.spam.example": true, "notspam.example": false, "bad.test:443": true} {
		if blocked, err := b.store.DomainBlocked(ctx, host); err != nil || blocked != want {
			t.Errorf("DomainBlocked(%s) = %v, %v; want %v", host, blocked, err, want)
		}
	}
	if got := b.eventTypes(since); len(got) != 0 {
		t.Errorf("domain blocks enqueued %v (nothing reacts to them)", got)
	}

	b.must(204, req{method: "DELETE", path: path + "/Spam.Example", token: admin.token})
	b.must(404, req{method: "DELETE", path: path + "/spam.example", token: admin.token}).errorMessage(t)
	if blocked, _ := b.store.DomainBlocked(ctx, "spam.example"); blocked {
		t.Error("spam.example still blocked after the unblock")
	}

	for _, c := range []struct {
		name   string
		r      req
		status int
	}{
		{"list without a token", req{method: "GET", path: path}, 401},
		{"block without a token", req{method: "POST", path: path, body: map[string]any{"domain": "x.test"}}, 401},
		{"unblock without a token", req{method: "DELETE", path: path + "/bad.test"}, 401},
		{"list as a standard user", req{method: "GET", path: path, token: bob.token}, 403},
		{"block as a standard user", req{method: "POST", path: path, token: bob.token, body: map[string]any{"domain": "x.test"}}, 403},
		{"unblock as a standard user", req{method: "DELETE", path: path + "/bad.test", token: bob.token}, 403},
		{"a domain that is no host", req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": "not a host!"}}, 400},
		{"an empty domain", req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": ""}}, 400},
		{"no domain", req{method: "POST", path: path, token: admin.token, body: map[string]any{"reason": "x"}}, 422},
		{"a domain of the wrong type", req{method: "POST", path: path, token: admin.token, body: map[string]any{"domain": 1}}, 422},
		{"malformed JSON", req{method: "POST", path: path, token: admin.token, body: `{"domain":`}, 400},
		{"unblock a malformed host", req{method: "DELETE", path: path + "/a_b!", token: admin.token}, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.must(c.status, c.r).errorMessage(t)
		})
	}
	if got := list(); len(got) != 1 || got[0].Domain != "bad.test" {
		t.Errorf("blocks after refused requests = %+v", got)
	}
}
