package httpapi_test

import (
	"context"
	"net/url"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// registerBody is a registration of name, with an invite token when one is given.
func registerBody(name, invite string) map[string]string {
	b := map[string]string{"email": name + "@example.test", "username": name, "password": "password-" + name}
	if invite != "" {
		b["invite"] = invite
	}
	return b
}

func loginBody(name string) map[string]string {
	return map[string]string{"email": name + "@example.test", "password": "password-" + name}
}

// inviteToken is the invite query parameter of an invite link.
func inviteToken(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("invite") == "" {
		t.Fatalf("invite link %q", link)
	}
	return u.Query().Get("invite")
}

// TestRegistrationModes: no mode makes a stranger the admin. The setup link makes the first
// admin (once); approval's registrations wait for an admin; invite needs an admin's link;
// closed refuses.
func TestRegistrationModes(t *testing.T) {
	t.Parallel()
	t.Run("ApprovalAndSetupLink", func(t *testing.T) {
		t.Parallel()
		b := setup(t, options{registration: domain.RegistrationApproval})
		// A stranger registering first gets a pending standard account, not the instance.
		var first struct {
			Role    string `json:"role"`
			Pending bool   `json:"pending"`
		}
		b.must(201, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("stranger", "")}).json(t, &first)
		if first.Role != "standard" || !first.Pending {
			t.Fatalf("the first registration: %+v, want a pending standard account", first)
		}
		if msg := b.must(403, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("stranger")}).errorMessage(t); msg == "" {
			t.Fatal("no reason for the pending log-in")
		}
		// The setup link makes the admin, once.
		svc := auth.New(b.store, nil, auth.Config{})
		link, err := svc.SetupLink(context.Background(), "http://diary.test")
		if err != nil || link == "" {
			t.Fatalf("setup link %q, %v", link, err)
		}
		token := inviteToken(t, link)
		var admin struct {
			Role    string `json:"role"`
			Pending bool   `json:"pending"`
		}
		b.must(201, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("root", token)}).json(t, &admin)
		if admin.Role != "admin" || admin.Pending {
			t.Fatalf("the setup link's account: %+v", admin)
		}
		b.must(403, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("again", token)})
		if link, err := svc.SetupLink(context.Background(), "http://diary.test"); err != nil || link != "" {
			t.Fatalf("a setup link with an admin: %q, %v", link, err)
		}
		// The admin approves the stranger, who may log in then.
		var login struct {
			Token string `json:"token"`
		}
		b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("root")}).json(t, &login)
		id := b.scalar(`SELECT id FROM users WHERE username = 'stranger'`)
		b.must(204, req{method: "POST", path: "/api/v1/admin/users/" + id + "/approve", token: login.Token})
		var stranger struct {
			Token string `json:"token"`
		}
		b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("stranger")}).json(t, &stranger)
		// A standard user can neither approve nor invite.
		b.must(403, req{method: "POST", path: "/api/v1/admin/users/" + id + "/approve", token: stranger.Token})
		b.must(403, req{method: "POST", path: "/api/v1/admin/invites", token: stranger.Token})
	})

	t.Run("InviteOnly", func(t *testing.T) {
		t.Parallel()
		b := setup(t, options{registration: domain.RegistrationInvite})
		b.must(401, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("stranger", "")})
		b.must(403, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("forger", "made-up")})
		link, err := auth.New(b.store, nil, auth.Config{}).SetupLink(context.Background(), "http://diary.test")
		if err != nil {
			t.Fatal(err)
		}
		b.must(201, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("root", inviteToken(t, link))})
		var login struct {
			Token string `json:"token"`
		}
		b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("root")}).json(t, &login)
		var inv struct {
			URL       string `json:"url"`
			ExpiresAt string `json:"expires_at"`
		}
		b.must(201, req{method: "POST", path: "/api/v1/admin/invites", token: login.Token}).json(t, &inv)
		var friend struct {
			Role    string `json:"role"`
			Pending bool   `json:"pending"`
		}
		b.must(201, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("friend", inviteToken(t, inv.URL))}).json(t, &friend)
		if friend.Role != "standard" || friend.Pending || inv.ExpiresAt == "" {
			t.Fatalf("the invited account: %+v (invite %+v)", friend, inv)
		}
		b.must(200, req{method: "POST", path: "/api/v1/auth/login", body: loginBody("friend")})
	})

	t.Run("Closed", func(t *testing.T) {
		t.Parallel()
		b := setup(t, options{registration: domain.RegistrationClosed})
		b.must(401, req{method: "POST", path: "/api/v1/auth/register", body: registerBody("stranger", "")})
		if n := b.scalar(`SELECT count(*) FROM users`); n != "0" {
			t.Fatalf("%s users after refused registrations", n)
		}
	})
}
