package web

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// The account page's personal access tokens and two factors, and the log-in's code step.

func (s *Server) credentialRoutes(r chi.Router) {
	r.Post("/login/code", s.page(anyone, s.loginCode))
	r.Post("/account/tokens", s.page(member, s.createAccessToken))
	r.Post("/account/tokens/{id}/revoke", s.page(member, s.revokeAccessToken))
	r.Post("/account/two-factor/setup", s.page(member, s.setupTwoFactor))
	r.Post("/account/two-factor/confirm", s.page(member, s.confirmTwoFactor))
	r.Post("/account/two-factor/recovery-codes", s.page(member, s.newRecoveryCodes))
	r.Post("/account/two-factor/disable", s.page(member, s.disableTwoFactor))
}

// credentials are the account page's tokens and two factors, with what a form shows once: a new
// token's secret, an enrolment's secret, new recovery codes.
type credentials struct {
	Tokens    []domain.AccessToken
	TwoFactor domain.TwoFactor
	// MustEnrol is true when the instance requires two factors and the viewer has none.
	MustEnrol bool
	Now       time.Time

	NewToken      string
	Enrolment     *auth.Enrolment
	RecoveryCodes []string
}

func (s *Server) loadCredentials(r *http.Request, v visit, c *credentials) error {
	ctx := r.Context()
	var err error
	if c.Tokens, err = s.Auth.AccessTokens(ctx, v.me.ID); err != nil {
		return err
	}
	if c.TwoFactor, err = s.Auth.TwoFactorStatus(ctx, v.me.ID); err != nil {
		return err
	}
	c.MustEnrol = s.Auth.RequireTwoFactor() && !c.TwoFactor.Enabled
	c.Now = time.Now()
	return nil
}

// enrolPaths are the pages a user who must turn two factors on may still open.
var enrolPaths = map[string]bool{"/account": true, "/account/two-factor/setup": true, "/account/two-factor/confirm": true,
	"/logout": true, "/login": true, "/login/code": true}

// sendToEnrol sends a signed-in user without two factors, on an instance that requires them,
// to the account page's enrolment before anything else; it reports whether it answered.
func (s *Server) sendToEnrol(w http.ResponseWriter, r *http.Request, v visit) (bool, error) {
	if v.me == nil || s.Auth == nil || !s.Auth.RequireTwoFactor() || enrolPaths[r.URL.Path] {
		return false, nil
	}
	must, err := s.Auth.MustEnrol(r.Context(), v.me.ID)
	if err != nil || !must {
		return false, err
	}
	if r.Method == http.MethodGet {
		http.Redirect(w, r, "/account#two-factor", http.StatusSeeOther)
		return true, nil
	}
	return true, endpoint.Fail(http.StatusForbidden, "This instance requires two-factor authentication: turn it on on your account page first.")
}

// codeForm is the log-in's second step: the challenge of the password step and a code.
func (s *Server) codeForm(w http.ResponseWriter, r *http.Request, v visit, status int, challenge, msg string) error {
	return s.render(w, r, v, status, "logincode", "Two-factor code", formState{Err: msg,
		Values: map[string]string{"challenge": challenge, "next": localPath(r.PostFormValue("next"))}})
}

func (s *Server) loginCode(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	challenge := r.PostFormValue("challenge")
	sess, err := s.Auth.LoginTwoFactor(r.Context(), challenge, r.PostFormValue("code"))
	if err != nil {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		return s.codeForm(w, r, v, st, challenge, authMessage(err))
	}
	s.beginSession(w, sess)
	return redirect(w, r, localPath(r.PostFormValue("next")))
}

// tokenLifetimes are the account page's expiry choices, in days ("" never).
var tokenLifetimes = map[string]int{"": 0, "7": 7, "30": 30, "90": 90, "365": 365}

func (s *Server) createAccessToken(w http.ResponseWriter, r *http.Request, v visit) error {
	days, ok := tokenLifetimes[r.PostFormValue("expires")]
	if !ok {
		return s.refusedAccount(w, r, v, domain.Invalid("Pick an expiry from the list"))
	}
	ask := auth.NewAccessToken{Name: r.PostFormValue("name"), Scope: r.PostFormValue("scope")}
	if days > 0 {
		exp := time.Now().Add(time.Duration(days) * 24 * time.Hour)
		ask.ExpiresAt = &exp
	}
	_, secret, err := s.Auth.CreateAccessToken(r.Context(), v.me.ID, ask)
	if err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	// Shown this once, so never cached.
	w.Header().Set("Cache-Control", "no-store")
	return s.renderAccountWith(w, r, v, http.StatusOK, formState{}, credentials{NewToken: secret})
}

func (s *Server) revokeAccessToken(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return s.refusedAccount(w, r, v, domain.NotFound("No such token"))
	}
	if err := s.Auth.RevokeAccessToken(r.Context(), v.me.ID, id); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	return redirect(w, r, "/account?done=token-revoked#tokens")
}

func (s *Server) setupTwoFactor(w http.ResponseWriter, r *http.Request, v visit) error {
	e, err := s.Auth.BeginTwoFactor(r.Context(), v.me.ID, r.PostFormValue("current_password"))
	if err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	return s.renderAccountWith(w, r, v, http.StatusOK, formState{}, credentials{Enrolment: &e})
}

func (s *Server) confirmTwoFactor(w http.ResponseWriter, r *http.Request, v visit) error {
	codes, err := s.Auth.ConfirmTwoFactor(r.Context(), v.me.ID, r.PostFormValue("code"))
	if err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	return s.renderAccountWith(w, r, v, http.StatusOK, formState{}, credentials{RecoveryCodes: codes})
}

func (s *Server) newRecoveryCodes(w http.ResponseWriter, r *http.Request, v visit) error {
	codes, err := s.Auth.NewRecoveryCodes(r.Context(), v.me.ID, r.PostFormValue("current_password"))
	if err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	return s.renderAccountWith(w, r, v, http.StatusOK, formState{}, credentials{RecoveryCodes: codes})
}

func (s *Server) disableTwoFactor(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.Auth.DisableTwoFactor(r.Context(), v.me.ID, r.PostFormValue("current_password"), r.PostFormValue("code")); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	return redirect(w, r, "/account?done=two-factor-off#two-factor")
}
