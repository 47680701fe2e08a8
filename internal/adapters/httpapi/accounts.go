package httpapi

import (
	"net/http"
	"time"
)

// The account routes beyond the original's: invite links and approvals (admin), self-service
// (account_self.go) and personal access tokens (access_tokens.go).

// accountRoutes are the routes of this file and its siblings.
func (s *Server) accountRoutes() []route {
	const post = http.MethodPost
	rs := append(s.accessTokenRoutes(), s.twoFactorRoutes()...)
	return append(append(rs, s.selfRoutes()...),
		route{method: post, pattern: "/api/v1/admin/invites", summary: "Make a one-time invite link (admin)", access: accessAdmin,
			handle: s.createInvite, response: inviteResponse{}, status: 201, errors: []int{401, 403}},
		route{method: post, pattern: "/api/v1/admin/users/{id}/approve", summary: "Approve an account waiting for approval (admin)",
			access: accessAdmin, handle: s.approveUser, status: 204, errors: []int{400, 401, 403, 404}},
	)
}

type inviteResponse struct {
	// URL is the registration page with the invite; it works once.
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at" openapi:"format=date-time"`
}

func (s *Server) createInvite(w http.ResponseWriter, r *http.Request) error {
	url, exp, err := s.Auth.CreateInvite(r.Context(), currentUser(r), s.BaseURL)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, inviteResponse{URL: url, ExpiresAt: exp.UTC().Format(time.RFC3339)})
	return nil
}

func (s *Server) approveUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.Auth.Approve(r.Context(), currentUser(r), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
