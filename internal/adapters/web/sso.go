package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// SignOnProvider is an OpenID provider as the pages use it (adapters/oidc.Provider).
type SignOnProvider interface {
	// AuthURL is the provider's authorization request for a sign-in's state, nonce and PKCE
	// verifier (sent as its S256 challenge).
	AuthURL(ctx context.Context, state, nonce, verifier string) (string, error)
	// Exchange redeems the callback's code with the verifier and returns the claims of the
	// verified ID token, whose nonce must be nonce.
	Exchange(ctx context.Context, code, verifier, nonce string) (auth.Claims, error)
}

// SignOn is single sign-on on the pages: the log-in page's "Sign in with <Name>" link,
// GET /auth/oidc/login (to the provider) and GET /auth/oidc/callback (back from it).
type SignOn struct {
	// Name is the provider's name on the button (OIDC_PROVIDER_NAME).
	Name     string
	Provider SignOnProvider
	Accounts *auth.SSO
	// Key signs the cookie that keeps a sign-in's state, nonce and PKCE verifier.
	Key []byte
}

// The sign-in cookie: SameSite=Lax, unlike the session's, since the provider's redirect back
// is a cross-site navigation that a Strict cookie would not come with.
const (
	signOnCookie = "md_oidc"
	signOnTTL    = 10 * time.Minute
)

// signOnAttempt is what the sign-in cookie keeps between the redirect and the callback.
type signOnAttempt struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"` // Unix seconds
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// seal is the attempt as a cookie value: its JSON and an HMAC of it, both base64url.
func (so *SignOn) seal(a signOnAttempt) string {
	payload, _ := json.Marshal(a)
	mac := hmac.New(sha256.New, so.Key)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// open reads a sealed attempt back: false when it is malformed, forged or expired.
func (so *SignOn) open(v string, now time.Time) (signOnAttempt, bool) {
	p, m, ok := strings.Cut(v, ".")
	if !ok {
		return signOnAttempt{}, false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	sum, err2 := base64.RawURLEncoding.DecodeString(m)
	if err1 != nil || err2 != nil {
		return signOnAttempt{}, false
	}
	mac := hmac.New(sha256.New, so.Key)
	mac.Write(payload)
	if !hmac.Equal(sum, mac.Sum(nil)) {
		return signOnAttempt{}, false
	}
	var a signOnAttempt
	if json.Unmarshal(payload, &a) != nil || now.Unix() > a.Expires || a.State == "" {
		return signOnAttempt{}, false
	}
	return a, true
}

// signOnName is the button's provider name, "" without single sign-on.
func (s *Server) signOnName() string {
	if s.SignOn == nil {
		return ""
	}
	return s.SignOn.Name
}

// signOnLogin starts a sign-in: a new state, nonce and PKCE verifier go into the sign-in cookie,
// and the browser to the provider.
func (s *Server) signOnLogin(w http.ResponseWriter, r *http.Request, v visit) error {
	next := localPath(r.URL.Query().Get("next"))
	if v.signedIn() {
		return redirect(w, r, next)
	}
	if s.throttled(w, r) {
		return errTooMany
	}
	a := signOnAttempt{State: randomToken(), Nonce: randomToken(), Verifier: randomToken(), Next: next,
		Expires: time.Now().Add(signOnTTL).Unix()}
	to, err := s.SignOn.Provider.AuthURL(r.Context(), a.State, a.Nonce, a.Verifier)
	if err != nil {
		return s.signOnRefused(w, r, v, err)
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(signOnCookie), Value: s.SignOn.seal(a), Path: "/",
		MaxAge: int(signOnTTL.Seconds()), HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	return redirect(w, r, to)
}

// The callback's refusals of a request that did not come from a sign-in this browser started.
var (
	errSignOnStale = endpoint.Fail(http.StatusBadRequest,
		"This sign-in has expired or was not started in this browser. Start it again from the log-in page.")
	errSignOnState = endpoint.Fail(http.StatusBadRequest,
		"This sign-in's answer does not belong to the sign-in this browser started (its state differs). Start it again from the log-in page.")
	errSignOnNoCode = endpoint.Fail(http.StatusBadRequest, "The sign-in provider's answer carries no code. Start the sign-in again.")
)

// signOnCallback finishes a sign-in: the provider's error, or the state checked against the
// sign-in cookie (spent either way), the code exchanged with the PKCE verifier, the ID token
// verified with the nonce, and the account's session begun.
func (s *Server) signOnCallback(w http.ResponseWriter, r *http.Request, v visit) error {
	cookie := s.cookie(r, signOnCookie)
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(signOnCookie), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		status := http.StatusBadRequest
		if e == "access_denied" || e == "login_required" || e == "consent_required" {
			status = http.StatusForbidden
		}
		msg := "The sign-in at " + s.SignOn.Name + " did not succeed (" + clip(e, 64) + ")"
		if d := q.Get("error_description"); d != "" {
			msg += ": " + clip(d, 200)
		}
		return s.signOnRefused(w, r, v, endpoint.Fail(status, msg+"."))
	}
	a, ok := s.SignOn.open(cookie, time.Now())
	if !ok {
		return s.signOnRefused(w, r, v, errSignOnStale)
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(a.State)) != 1 {
		return s.signOnRefused(w, r, v, errSignOnState)
	}
	code := q.Get("code")
	if code == "" {
		return s.signOnRefused(w, r, v, errSignOnNoCode)
	}
	claims, err := s.SignOn.Provider.Exchange(r.Context(), code, a.Verifier, a.Nonce)
	if err != nil {
		return s.signOnRefused(w, r, v, err)
	}
	sess, err := s.SignOn.Accounts.SignIn(r.Context(), claims)
	if err != nil {
		return s.signOnRefused(w, r, v, err)
	}
	s.beginSession(w, sess)
	// A page that moves on by itself rather than a redirect: the browser came here from the
	// provider's site, and a redirect would carry that cross-site origin on, so the SameSite=Strict
	// session cookies would not come with the next page; a refresh of this page is same-site.
	return s.render(w, r, visit{me: &sess.User, csrf: v.csrf}, http.StatusOK, "signedin", "Signed in",
		signedIn{Next: a.Next, Provider: s.SignOn.Name})
}

// signedIn is the page a completed sign-in shows on its way on.
type signedIn struct {
	Next, Provider string
}

// signOnRefused shows a failed sign-in on the log-in page with its status and message; a
// failure of ours is the error page.
func (s *Server) signOnRefused(w http.ResponseWriter, r *http.Request, v visit, err error) error {
	st := authStatus(w, err)
	if st == 0 {
		return err
	}
	s.log.InfoContext(r.Context(), "single sign-on refused", "status", st, "reason", authMessage(err))
	return s.render(w, r, v, st, "login", "Log in", formState{Err: authMessage(err), Values: map[string]string{"next": "/"}})
}

// clip bounds a provider's text shown on the page.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
