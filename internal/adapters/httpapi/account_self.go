package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// selfRoutes are the caller's own account changes: password, e-mail, username, sessions and
// deleting the account. Each change that could lock the owner out needs the current password.
func (s *Server) selfRoutes() []route {
	const get, put, del = http.MethodGet, http.MethodPut, http.MethodDelete
	pw := []int{400, 401, 403, 415, 422, 429}
	return []route{
		{method: put, pattern: "/api/v1/account/password", summary: "Change my password (current one required); ends my other sessions and returns a new one",
			access: accessUser, handle: s.changePassword, request: changePasswordRequest{}, response: refreshResponse{}, status: 200, errors: pw},
		{method: put, pattern: "/api/v1/account/email", summary: "Change my e-mail address (current password required); with mail, 202: it takes effect once the link mailed to it is followed",
			access: accessUser, handle: s.changeEmail, request: changeEmailRequest{}, status: 204, errors: append([]int{202, 409}, pw...)},
		{method: put, pattern: "/api/v1/account/username", summary: "Change my username (followers get an Update; the old one stays reserved)",
			access: accessUser, handle: s.changeUsername, request: changeUsernameRequest{}, response: changeUsernameRequest{}, status: 200,
			errors: []int{400, 401, 415, 422}},
		{method: get, pattern: "/api/v1/account/sessions", summary: "My active log-ins", access: accessUser,
			handle: s.listSessions, response: []sessionDTO{}, status: 200, errors: []int{401}},
		{method: del, pattern: "/api/v1/account/sessions/{id}", summary: "End one of my log-ins", access: accessUser,
			handle: s.endSession, status: 204, errors: []int{401, 404}},
		{method: del, pattern: "/api/v1/account", summary: "Delete my account and everything mine (current password required); followers' servers get a Delete",
			access: accessUser, handle: s.deleteAccount, request: deleteAccountRequest{}, status: 204, errors: []int{400, 401, 403, 409, 415, 422, 429}},
	}
}

type changePasswordRequest struct {
	CurrentPassword *string `json:"current_password" openapi:"required,nonnull"`
	NewPassword     *string `json:"new_password" openapi:"required,nonnull,minLength=8"`
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	var req changePasswordRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.CurrentPassword == nil:
		return required("current_password")
	case req.NewPassword == nil:
		return required("new_password")
	}
	sess, err := s.Auth.ChangePassword(r.Context(), currentUser(r), *req.CurrentPassword, *req.NewPassword)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, refreshResponse{Token: sess.Token, RefreshToken: sess.RefreshToken,
		ExpiresAt: sess.ExpiresAt.UTC().Format(time.RFC3339)})
	return nil
}

type changeEmailRequest struct {
	CurrentPassword *string `json:"current_password" openapi:"required,nonnull"`
	Email           *string `json:"email" openapi:"required,nonnull"`
}

func (s *Server) changeEmail(w http.ResponseWriter, r *http.Request) error {
	var req changeEmailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.CurrentPassword == nil:
		return required("current_password")
	case req.Email == nil:
		return required("email")
	}
	if err := s.Auth.ChangeEmail(r.Context(), currentUser(r), *req.CurrentPassword, *req.Email); err != nil {
		return err
	}
	if s.Auth.MailEnabled() {
		w.WriteHeader(http.StatusAccepted) // a confirmation link is on its way to the new address
		return nil
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type changeUsernameRequest struct {
	Username *string `json:"username" openapi:"required,nonnull,minLength=2,maxLength=30"`
}

func (s *Server) changeUsername(w http.ResponseWriter, r *http.Request) error {
	var req changeUsernameRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Username == nil {
		return required("username")
	}
	name, err := s.Auth.ChangeUsername(r.Context(), currentUser(r), *req.Username)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, changeUsernameRequest{Username: &name})
	return nil
}

type sessionDTO struct {
	ID         string `json:"id"`
	StartedAt  string `json:"started_at" openapi:"format=date-time"`
	LastUsedAt string `json:"last_used_at" openapi:"format=date-time"`
	ExpiresAt  string `json:"expires_at" openapi:"format=date-time"`
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Auth.Sessions(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]sessionDTO, len(list))
	for i, x := range list {
		out[i] = sessionDTO{ID: x.ID, StartedAt: x.StartedAt.Format(time.RFC3339), LastUsedAt: x.LastUsed.Format(time.RFC3339),
			ExpiresAt: x.ExpiresAt.Format(time.RFC3339)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) endSession(w http.ResponseWriter, r *http.Request) error {
	if err := s.Auth.EndSession(r.Context(), currentUser(r), chi.URLParam(r, "id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type deleteAccountRequest struct {
	CurrentPassword *string `json:"current_password" openapi:"required,nonnull"`
}

func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	var req deleteAccountRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.CurrentPassword == nil {
		return required("current_password")
	}
	if err := s.Auth.DeleteAccount(r.Context(), currentUser(r), *req.CurrentPassword); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
