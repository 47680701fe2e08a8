package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"moviesdiary/internal/domain"
)

// accountPage is the viewer's own account: password, e-mail, username, sessions, personal
// access tokens, two factors (credentials.go), deletion.
type accountPage struct {
	formState
	Sessions []domain.LoginSession
	// Export offers the diary download before the deletion.
	Export bool
	credentials
}

func (s *Server) account(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderAccount(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderAccount(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	return s.renderAccountWith(w, r, v, status, f, credentials{})
}

// renderAccountWith renders the account page with what a credentials form shows once.
func (s *Server) renderAccountWith(w http.ResponseWriter, r *http.Request, v visit, status int, f formState, c credentials) error {
	list, err := s.Auth.Sessions(r.Context(), v.me.ID)
	if err != nil {
		return err
	}
	if err := s.loadCredentials(r, v, &c); err != nil {
		return err
	}
	return s.render(w, r, v, status, "account", "Account", accountPage{formState: f, Sessions: list, Export: s.Export != nil, credentials: c})
}

// refusedAccount re-renders the account page with err's message (the wait of a throttled one
// included), or returns a failure of ours.
func (s *Server) refusedAccount(w http.ResponseWriter, r *http.Request, v visit, err error) error {
	st := authStatus(w, err)
	if st == 0 {
		return err
	}
	return s.renderAccount(w, r, v, st, formState{Err: authMessage(err)})
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, v visit) error {
	next := r.PostFormValue("new_password")
	if next != r.PostFormValue("new_password2") {
		return s.renderAccount(w, r, v, http.StatusUnprocessableEntity, formState{Err: "The two new passwords differ."})
	}
	sess, err := s.Auth.ChangePassword(r.Context(), v.me.ID, r.PostFormValue("current_password"), next)
	if err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	s.beginSession(w, sess)
	return redirect(w, r, "/account?done=password")
}

func (s *Server) changeEmail(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.Auth.ChangeEmail(r.Context(), v.me.ID, r.PostFormValue("current_password"), r.PostFormValue("email")); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	if s.Auth.MailEnabled() {
		return redirect(w, r, "/account?done=email-sent")
	}
	return redirect(w, r, "/account?done=email")
}

// resendConfirmation mails the caller's unconfirmed address its confirmation link again.
func (s *Server) resendConfirmation(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.Auth.ResendConfirmation(r.Context(), v.me.ID); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	return redirect(w, r, "/account?done=email-resent")
}

func (s *Server) changeUsername(w http.ResponseWriter, r *http.Request, v visit) error {
	if _, err := s.Auth.ChangeUsername(r.Context(), v.me.ID, r.PostFormValue("username")); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	return redirect(w, r, "/account?done=username")
}

func (s *Server) endLoginSession(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.Auth.EndSession(r.Context(), v.me.ID, chi.URLParam(r, "id")); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	return redirect(w, r, "/account?done=session-ended")
}

func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request, v visit) error {
	if r.PostFormValue("confirm") != "on" {
		return s.renderAccount(w, r, v, http.StatusUnprocessableEntity, formState{Err: "Tick the box to confirm."})
	}
	if err := s.Auth.DeleteAccount(r.Context(), v.me.ID, r.PostFormValue("current_password")); err != nil {
		return s.refusedAccount(w, r, v, err)
	}
	s.endSession(w)
	return redirect(w, r, "/?done=account-deleted")
}
