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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
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

// failed is this test binary's failed build of the provider, so its other tests do not try again.
var failed struct {
	sync.Mutex
	err error
}

// Binary returns the path of the provider binary, building it on first use. When it cannot be
// built (offline, typically) or MOVIESDIARY_TEST_WITHOUT names oidc-provider, the test ends as
// testtool.Missing says: a failure, or a skip under the fast switch.
func Binary(t testing.TB) string {
	t.Helper()
	if testtool.Hidden(testtool.OIDCProvider) {
		testtool.Missing(t, testtool.OIDCProvider, fmt.Errorf("left out by %s", testtool.WithoutEnv))
	}
	failed.Lock()
	defer failed.Unlock()
	if failed.err != nil {
		testtool.Missing(t, testtool.OIDCProvider, failed.err)
	}
	bin, err := build(t)
	if err != nil {
		failed.err = err
		testtool.Missing(t, testtool.OIDCProvider, err)
	}
	return bin
}

// build returns the kept provider binary, building it first if there is none; its error is a
// failed go build (whose whole output goes to the test's log).
func build(t testing.TB) (string, error) {
	t.Helper()
	module, err := providerModule()
	if err != nil {
		t.Fatalf("oidctest: the provider module: %v", err)
	}
	var pin []byte
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(module, f))
		if err != nil {
			t.Fatalf("oidctest: the provider module: %v", err)
		}
		pin = append(pin, b...)
	}
	h := sha256.Sum256(pin)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "moviesdiary", "oidc-provider-"+hex.EncodeToString(h[:6]))
	bin := filepath.Join(dir, "oidc-provider")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil { // another package built it while this one waited
		return bin, nil
	}
	t.Logf("oidctest: building the OpenID provider into %s (once; a cold build takes a minute or two)", dir)
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/zitadel/oidc/v3/example/server")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("oidctest: go build the provider: %v\n%s", err, out)
		// The last line says why (offline: "module lookup disabled", "dial tcp …").
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return "", fmt.Errorf("go build the provider: %v: %s", err, lines[len(lines)-1])
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin, nil
}

// providerModule is the directory of the provider's pin module: beside this file, found from
// the main module's go.mod when the test was built with -trimpath.
func providerModule() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	if filepath.IsAbs(file) {
		return filepath.Join(filepath.Dir(file), "provider"), nil
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the moviesdiary module")
	}
	return filepath.Join(filepath.Dir(gomod), "internal", "adapters", "oidc", "oidctest", "provider"), nil
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
