package httpapi

import (
	"net/http"
)

// mailRoutes are the mailed links' routes: asking for a password reset link, setting a new
// password with it, and confirming an e-mail address. They are public (the link's token is the
// credential) and spend the caller IP's auth budget.
func (s *Server) mailRoutes() []route {
	const post = http.MethodPost
	return []route{
		{method: post, pattern: "/api/v1/auth/password-reset", limited: true,
			summary: "Mail me a password reset link (always 202, whether or not the address has an account; 501 without mail)",
			handle:  s.requestPasswordReset, request: passwordResetRequest{}, response: acceptedResponse{}, status: 202,
			errors: []int{400, 415, 422, 429, 501}},
		{method: post, pattern: "/api/v1/auth/password-reset/confirm", limited: true,
			summary: "Set a new password with a reset link's token (works once, for an hour); ends every session of the account",
			handle:  s.confirmPasswordReset, request: passwordResetConfirmRequest{}, status: 204,
			errors: []int{400, 403, 415, 422, 429, 503}},
		{method: post, pattern: "/api/v1/account/email/confirm", limited: true,
			summary: "Confirm an e-mail address with its link's token (works once, for an hour)",
			handle:  s.confirmEmail, request: confirmEmailRequest{}, status: 204, errors: []int{400, 403, 415, 422, 429}},
		{method: post, pattern: "/api/v1/account/email/resend", access: accessUser, limited: true,
			summary: "Mail my unconfirmed address its confirmation link again (400 when confirmed; 501 without mail)",
			handle:  s.resendConfirmation, response: acceptedResponse{}, status: 202, errors: []int{400, 401, 403, 409, 429, 501}},
	}
}

func (s *Server) resendConfirmation(w http.ResponseWriter, r *http.Request) error {
	if err := s.Auth.ResendConfirmation(r.Context(), currentUser(r)); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, acceptedResponse{Status: "accepted"})
	return nil
}

type passwordResetRequest struct {
	Email *string `json:"email" openapi:"required,nonnull"`
}

func (s *Server) requestPasswordReset(w http.ResponseWriter, r *http.Request) error {
	var req passwordResetRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Email == nil {
		return required("email")
	}
	if err := s.Auth.RequestPasswordReset(r.Context(), *req.Email); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, acceptedResponse{Status: "accepted"})
	return nil
}

type passwordResetConfirmRequest struct {
	Token       *string `json:"token" openapi:"required,nonnull"`
	NewPassword *string `json:"new_password" openapi:"required,nonnull,minLength=8"`
}

func (s *Server) confirmPasswordReset(w http.ResponseWriter, r *http.Request) error {
	var req passwordResetConfirmRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.Token == nil:
		return required("token")
	case req.NewPassword == nil:
		return required("new_password")
	}
	if err := s.Auth.ResetPassword(r.Context(), *req.Token, *req.NewPassword); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type confirmEmailRequest struct {
	Token *string `json:"token" openapi:"required,nonnull"`
}

func (s *Server) confirmEmail(w http.ResponseWriter, r *http.Request) error {
	var req confirmEmailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Token == nil {
		return required("token")
	}
	if err := s.Auth.ConfirmEmail(r.Context(), *req.Token); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
