// Package oidctest runs a real OpenID provider on loopback for tests: zitadel/oidc's example
// provider (Apache 2.0), with the users a test gives it and an HTML login form, built with
// `go build` from the module proxy (its own module in ./provider, pinned there, so its
// dependencies stay out of moviesdiary's go.mod).
//
// The binary is built once per provider version and kept in the user cache directory
// ($XDG_CACHE_HOME or ~/.cache, under moviesdiary/), under a file lock so parallel test packages
// build it once. A cold build (empty Go build cache) costs about 100 CPU-seconds, two minutes on
// a busy 2-core machine; a kept binary nothing.
//
// Offline, with the provider's modules not yet in the module cache, the build fails and so does
// the test, or under testtool's fast switch (make test-fast) the test is skipped saying so.
//
// What the provider offers a test: the confidential client "web" (secret "secret", HTTP Basic
// or form authentication, PKCE S256) with the redirect URIs the test names; the scopes openid,
// email, profile, phone, offline_access and "custom_scope", which adds the claim
// custom_claim = {"client": <client id>, "other": "stuff"} to the ID token and the UserInfo
// (the provider has no groups, so the group tests map "custom_claim.other"). The ID token holds
// the profile and e-mail claims only when no access token is issued, which the code flow always
// does: a client must read them from the UserInfo endpoint, as many real providers require.
package oidctest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/testtool"
)

// The provider's confidential client and the scope that adds custom_claim.
const (
	ClientID     = "web"
	ClientSecret = "secret"
	CustomScope  = "custom_scope"
)

// User is a person at the provider (the example provider's users file format).
type User struct {
	ID                string
	Username          string
	Password          string
	FirstName         string
	LastName          string
	Email             string
	EmailVerified     bool
	Phone             string
	PhoneVerified     bool
	PreferredLanguage string
	IsAdmin           bool
}

// Provider is a running OpenID provider.
type Provider struct {
	// Issuer is its issuer URL, http://localhost:port/ (the example provider names itself
	// localhost whatever address it is reached at).
	Issuer string
	cmd    *exec.Cmd
	done   chan error
}

// Start builds (or reuses) the provider and starts it on a free port with users and the client
// "web" allowed to redirect to redirectURIs; the test's clean-up stops it.
func Start(t testing.TB, users []User, redirectURIs ...string) *Provider {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	byID := map[string]User{}
	for _, u := range users {
		if u.PreferredLanguage == "" {
			u.PreferredLanguage = "en"
		}
		byID[u.ID] = u
	}
	data, err := json.Marshal(byID)
	if err != nil {
		t.Fatal(err)
	}
	usersFile := filepath.Join(dir, "users.json")
	if err := os.WriteFile(usersFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The port is free when chosen; another process may take it before the provider binds it,
	// so a provider that exits at once is started again on another.
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		p := &Provider{Issuer: "http://localhost:" + port + "/"}
		if err = p.start(bin, dir, port, usersFile, redirectURIs); err == nil {
			t.Cleanup(p.Stop)
			return p
		}
		t.Logf("oidctest: start on port %s: %v", port, err)
	}
	t.Fatal("oidctest: the provider did not start")
	return nil
}

// start runs the provider on port and waits until its discovery document answers.
func (p *Provider) start(bin, dir, port, usersFile string, redirectURIs []string) error {
	p.done = make(chan error, 1)
	log, err := os.OpenFile(filepath.Join(dir, "provider-"+port+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(bin)
	p.cmd.Env = append(os.Environ(), "PORT="+port, "USERS_FILE="+usersFile, "REDIRECT_URI="+strings.Join(redirectURIs, ","))
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { p.done <- p.cmd.Wait(); log.Close() }()
	if err := p.waitReady(); err != nil {
		p.Stop()
		out, _ := os.ReadFile(log.Name())
		return fmt.Errorf("%w; its output: %s", err, out)
	}
	return nil
}

// waitReady waits until the discovery document answers, or the provider has exited.
func (p *Provider) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("the provider exited: %v", err)
		default:
		}
		if resp, err := client.Get(p.Issuer + ".well-known/openid-configuration"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("the provider exited: %v", err)
		case <-time.After(20 * time.Millisecond): // a poll interval, not a synchronisation
		}
	}
	return fmt.Errorf("no answer from %s within 30s", p.Issuer)
}

// Stop kills the provider and waits for it (calling it twice is harmless).
func (p *Provider) Stop() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	err := <-p.done
	p.done <- err
}

// loginForm finds the login page's hidden auth request id.
var loginForm = regexp.MustCompile(`<input type="hidden" name="id" value="([^"]+)">`)

// SignIn signs in at the provider over real HTTP, as a browser without JavaScript would:
// client (with a cookie jar, following redirects) opens start, the page that redirects to the
// provider (our /auth/oidc/login); the provider's login form is filled in with username and
// password and submitted, and client follows the redirects back to the callback. It returns the
// last response, its body read into the second result.
func SignIn(t testing.TB, client *http.Client, start, username, password string) (*http.Response, string) {
	t.Helper()
	resp, body := get(t, client, start)
	m := loginForm.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("oidctest: %s (%d, at %s) is not the provider's login form:\n%s", start, resp.StatusCode, resp.Request.URL, body)
	}
	action := resp.Request.URL.ResolveReference(&url.URL{Path: "/login/username"})
	resp, err := client.PostForm(action.String(), url.Values{"id": {m[1]}, "username": {username}, "password": {password}})
	if err != nil {
		t.Fatalf("oidctest: submit the login form: %v", err)
	}
	return resp, readBody(t, resp)
}

func get(t testing.TB, client *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("oidctest: GET %s: %v", u, err)
	}
	return resp, readBody(t, resp)
}

func readBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// provider is the provider binary, built from its pin module (./provider).
var provider = &testtool.Pinned{Tool: testtool.OIDCProvider, Module: "internal/adapters/oidc/oidctest/provider",
	Package: "github.com/zitadel/oidc/v3/example/server", Name: "oidc-provider"}

// Binary returns the path of the provider binary, building it on first use. When it cannot be
// built (offline, typically) or MOVIESDIARY_TEST_WITHOUT names oidc-provider, the test ends as
// testtool.Missing says: a failure, or a skip under the fast switch.
func Binary(t testing.TB) string {
	t.Helper()
	return provider.Binary(t)
}

// freePort returns a TCP port free at the moment (the provider listens on every interface).
func freePort() (string, error) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}
