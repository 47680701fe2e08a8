package web

import (
	"net/http"
)

// The mailed links' pages: forgot password (ask for a link), the link's new-password form, and
// the e-mail confirmation. A link opened by GET only shows a form: mail scanners and link
// previews fetch links, and must not spend them; the POST does.

// mailNotices are the mailed links' ?done= confirmations (beside notices).
var mailNotices = map[string]string{
	"password-reset":  "Password set. Every session of the account is signed out: log in with the new password.",
	"email-sent":      "A confirmation link is on its way to the new address: the change takes effect when you follow it.",
	"email-confirmed": "E-mail address confirmed.",
	"email-resent":    "The confirmation link is on its way again: follow the newest one.",
}

// forgotPage is the forgot-password page: its form, or that the link was sent, or that the
// instance sends no mail.
type forgotPage struct {
	formState
	Mail, Sent bool
}

func (s *Server) forgotForm(w http.ResponseWriter, r *http.Request, v visit) error {
	token := r.URL.Query().Get("token")
	if token == "" {
		return s.render(w, r, v, http.StatusOK, "forgot", "Forgot your password?", forgotPage{Mail: s.Auth.MailEnabled()})
	}
	return s.render(w, r, v, http.StatusOK, "reset", "Choose a new password", formState{Values: map[string]string{"token": token}})
}

func (s *Server) forgot(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	page := forgotPage{Mail: s.Auth.MailEnabled()}
	if err := s.Auth.RequestPasswordReset(r.Context(), r.PostFormValue("email")); err != nil {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		page.formState = formState{Err: authMessage(err), Values: formValues(r, "email")}
		return s.render(w, r, v, st, "forgot", "Forgot your password?", page)
	}
	page.Sent = true
	return s.render(w, r, v, http.StatusAccepted, "forgot", "Forgot your password?", page)
}

func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	refuse := func(st int, msg string) error {
		return s.render(w, r, v, st, "reset", "Choose a new password", formState{Err: msg, Values: formValues(r, "token")})
	}
	pw := r.PostFormValue("new_password")
	if pw != r.PostFormValue("new_password2") {
		return refuse(http.StatusUnprocessableEntity, "The two new passwords differ.")
	}
	if err := s.Auth.ResetPassword(r.Context(), r.PostFormValue("token"), pw); err != nil {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		return refuse(st, authMessage(err))
	}
	if v.signedIn() {
		s.endSession(w) // the reset ended every session, this browser's too
	}
	return redirect(w, r, "/login?done=password-reset")
}

func (s *Server) confirmEmailForm(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.render(w, r, v, http.StatusOK, "confirm_email", "Confirm your e-mail address",
		formState{Values: map[string]string{"token": r.URL.Query().Get("token")}})
}

func (s *Server) confirmEmail(w http.ResponseWriter, r *http.Request, v visit) error {
	if s.throttled(w, r) {
		return errTooMany
	}
	if err := s.Auth.ConfirmEmail(r.Context(), r.PostFormValue("token")); err != nil {
		st := authStatus(w, err)
		if st == 0 {
			return err
		}
		return s.render(w, r, v, st, "confirm_email", "Confirm your e-mail address",
			formState{Err: authMessage(err), Values: formValues(r, "token")})
	}
	if v.signedIn() {
		return redirect(w, r, "/account?done=email-confirmed")
	}
	return redirect(w, r, "/login?done=email-confirmed")
}
