package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// userKey is the context key of the authenticated user's id.
type userKey struct{}

// currentUser is the id of the request's authenticated user (routes with access user or admin).
func currentUser(r *http.Request) uuid.UUID {
	id, _ := r.Context().Value(userKey{}).(uuid.UUID)
	return id
}

// authenticate reads "Authorization: Bearer <jwt>" (the prefix is case-sensitive, as in the
// original API) and verifies the token, and with Authenticate set that its user still exists.
func (s *Server) authenticate(r *http.Request) (uuid.UUID, error) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || raw == "" {
		return uuid.Nil, domain.Errorf(domain.KindUnauthorized, "Unauthorized: Missing or invalid auth token")
	}
	if s.Authenticate != nil {
		return s.Authenticate(r.Context(), raw)
	}
	return s.Verify(raw)
}

type registerRequest struct {
	Email    *string `json:"email" openapi:"required,nonnull"`
	Username *string `json:"username" openapi:"required,nonnull,minLength=2,maxLength=30"`
	Password *string `json:"password" openapi:"required,nonnull,minLength=8"`
	// Invite is an invite link's token (its invite query parameter); it lets the caller register
	// whatever the registration mode.
	Invite *string `json:"invite,omitempty"`
}

type registerResponse struct {
	UserID   uuid.UUID `json:"user_id"`
	Username string    `json:"username"`
	Role     string    `json:"role"`
	// Pending is true when the account waits for an admin's approval (REGISTRATION_MODE=approval).
	Pending bool `json:"pending"`
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) error {
	var req registerRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.Email == nil:
		return required("email")
	case req.Username == nil:
		return required("username")
	case req.Password == nil:
		return required("password")
	}
	invite := ""
	if req.Invite != nil {
		invite = *req.Invite
	}
	u, err := s.Auth.Register(r.Context(), *req.Email, *req.Username, *req.Password, invite)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, registerResponse{UserID: u.ID, Username: u.Username, Role: string(u.Role), Pending: u.Pending})
	return nil
}

type loginRequest struct {
	Email    *string `json:"email" openapi:"required,nonnull"`
	Password *string `json:"password" openapi:"required,nonnull"`
}

type loginResponse struct {
	Token        string    `json:"token"`
	RefreshToken string    `json:"refresh_token"`
	UserID       uuid.UUID `json:"user_id"`
	Email        string    `json:"email"`
	ExpiresAt    string    `json:"expires_at" openapi:"format=date-time"`
	Role         string    `json:"role"`
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Email == nil {
		return required("email")
	}
	if req.Password == nil {
		return required("password")
	}
	sess, err := s.Auth.Login(r.Context(), *req.Email, *req.Password)
	if writeChallenge(w, err) { // two_factor.go
		return nil
	}
	if err != nil {
		return err
	}
	writeLogin(w, sess)
	return nil
}

type refreshRequest struct {
	RefreshToken *string `json:"refresh_token" openapi:"required,nonnull"`
}

type refreshResponse struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresAt    string `json:"expires_at" openapi:"format=date-time"`
}

func (s *Server) decodeRefresh(r *http.Request) (string, error) {
	var req refreshRequest
	if err := decode(r, &req); err != nil {
		return "", err
	}
	if req.RefreshToken == nil {
		return "", required("refresh_token")
	}
	return *req.RefreshToken, nil
}

func (s *Server) refresh(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.decodeRefresh(r)
	if err != nil {
		return err
	}
	sess, err := s.Auth.Refresh(r.Context(), tok)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, refreshResponse{
		Token: sess.Token, RefreshToken: sess.RefreshToken, ExpiresAt: sess.ExpiresAt.UTC().Format(time.RFC3339),
	})
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.decodeRefresh(r)
	if err != nil {
		return err
	}
	if err := s.Auth.Logout(r.Context(), tok); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
