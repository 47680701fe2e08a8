package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// localPath is next when it is a path of this site, "/" otherwise: the log-in form must not
// become an open redirect.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request, v visit) error {
	if v.signedIn() {
		return redirect(w, r, "/")
	}
	return s.render(w, r, v, http.StatusOK, "login", "Log in",
		formState{Values: map[string]string{"next": localPath(r.URL.Query().Get("next"))}})
}

// authMessage is a refused log-in or registration's message, the wait of a throttled one
// included.
func authMessage(err error) string {
	var th *auth.ThrottledError
	if errors.As(err, &th) {
		return fmt.Sprintf("Too many attempts. Wait %d seconds and try again.", th.RetryAfterSeconds())
	}
	var un *domain.UnavailableError
	if errors.As(err, &un) {
		return fmt.Sprintf("The server is busy checking other passwords. Wait %d seconds and try again.", un.RetryAfterSeconds())
	}
	return messageOf(err)
}

// authStatus is a refused log-in or registration's status, 0 for a failure of ours (the error
// page); a busy server's 503 is shown on the form with its Retry-After, like a refusal.
func authStatus(w http.ResponseWriter, err error) int {
	var th *auth.ThrottledError
	if errors.As(err, &th) {
		return http.StatusTooManyRequests
	}
	var un *domain.UnavailableError
	if errors.As(err, &un) {
		w.Header().Set("Retry-After", strconv.Itoa(un.RetryAfterSeconds()))
		return http.StatusServiceUnavailable
	}
	if st := statusOf(err); st < 500 {
		return st
	}
	return 0
}

// errTooMany refuses a log-in or registration over the IP's budget.
var errTooMany = endpoint.Fail(http.StatusTooManyRequests, "Too many attempts from your address. Wait a minute and try again.")

// throttled spends one of the client IP's log-in and registration attempts.
func (s *Server) throttled(w http.ResponseWriter, r *http.Request) bool {
	if s.limiter.Allow(endpoint.ClientIP(r, s.TrustedProxies)) {
		return false
	}
	w.Header().Set("Retry-After", "60")
	return true
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	sess, err := s.Auth.Login(r.Context(), r.PostFormValue("email"), r.PostFormValue("password"))
	var mfa *auth.SecondFactorRequired
	if errors.As(err, &mfa) { // credentials.go
		return s.codeForm(w, r, v, http.StatusOK, mfa.Challenge, "")
	}
	if err != nil {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		return s.render(w, r, v, st, "login", "Log in",
			formState{Err: authMessage(err), Values: formValues(r, "email", "next")})
	}
	s.beginSession(w, sess)
	return redirect(w, r, localPath(r.PostFormValue("next")))
}

func (s *Server) registerForm(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.render(w, r, v, http.StatusOK, "register", "Create an account",
		formState{Values: map[string]string{"invite": r.URL.Query().Get("invite")}})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	refuse := func(err error) error {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		return s.render(w, r, v, st, "register", "Create an account",
			formState{Err: authMessage(err), Values: formValues(r, "email", "username", "invite")})
	}
	if password != r.PostFormValue("password2") {
		return s.render(w, r, v, http.StatusUnprocessableEntity, "register", "Create an account",
			formState{Err: "The two passwords differ.", Values: formValues(r, "email", "username", "invite")})
	}
	u, err := s.Auth.Register(r.Context(), email, r.PostFormValue("username"), password, r.PostFormValue("invite"))
	if err != nil {
		return refuse(err)
	}
	if u.Pending {
		return redirect(w, r, "/login?done=pending")
	}
	sess, err := s.Auth.Login(r.Context(), email, password)
	if err != nil {
		return refuse(err)
	}
	s.beginSession(w, sess)
	return redirect(w, r, "/?done=registered")
}

// logout ends the refresh family and clears the cookies.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, v visit) error {
	if rt := s.cookie(r, refreshCookie); rt != "" {
		if err := s.Auth.Logout(r.Context(), rt); err != nil && statusOf(err) >= 500 {
			return err
		}
	}
	s.endSession(w)
	return redirect(w, r, "/")
}
