package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// Personal access tokens: "Authorization: Bearer mdp_…" works beside the JWT access tokens of a
// log-in, within the token's scope. Managing the account (its password, e-mail, sessions, tokens,
// two factors, or deleting it) takes a log-in: a leaked script token must not be able to make
// itself more tokens or lock its owner out.

// accessTokenRoutes list, make and revoke the caller's tokens.
func (s *Server) accessTokenRoutes() []route {
	const get, post, del = http.MethodGet, http.MethodPost, http.MethodDelete
	return []route{
		{method: get, pattern: "/api/v1/account/tokens", summary: "My personal access tokens (never their secrets)", access: accessUser,
			handle: s.listAccessTokens, response: []accessTokenDTO{}, status: 200, errors: []int{401, 403}},
		{method: post, pattern: "/api/v1/account/tokens", summary: "Make a personal access token (scope read, write or admin; the token is shown this once)",
			access: accessUser, handle: s.createAccessToken, request: createAccessTokenRequest{}, response: accessTokenCreated{}, status: 201,
			errors: []int{400, 401, 403, 415, 422}},
		{method: del, pattern: "/api/v1/account/tokens/{id}", summary: "Revoke one of my personal access tokens", access: accessUser,
			handle: s.revokeAccessToken, status: 204, errors: []int{400, 401, 403, 404}},
	}
}

type accessTokenDTO struct {
	ID         uuid.UUID `json:"id"`
	Name       string    `json:"name"`
	Scope      string    `json:"scope"`
	CreatedAt  string    `json:"created_at" openapi:"format=date-time"`
	ExpiresAt  *string   `json:"expires_at" openapi:"format=date-time"`
	LastUsedAt *string   `json:"last_used_at" openapi:"format=date-time"`
}

type createAccessTokenRequest struct {
	Name *string `json:"name" openapi:"required,nonnull,minLength=1,maxLength=100"`
	// Scope is read (GET and HEAD only), write (every route but the admin ones) or admin.
	Scope *string `json:"scope" openapi:"required,nonnull"`
	// ExpiresAt is when the token stops working (RFC 3339); absent or null: never.
	ExpiresAt *string `json:"expires_at" openapi:"format=date-time"`
}

// accessTokenCreated is a new token with its secret, shown this once.
type accessTokenCreated struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Scope     string    `json:"scope"`
	Token     string    `json:"token"`
	CreatedAt string    `json:"created_at" openapi:"format=date-time"`
	ExpiresAt *string   `json:"expires_at" openapi:"format=date-time"`
}

// optionalRFC3339 is rfc3339 of a time that may be absent.
func optionalRFC3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := rfc3339(*t)
	return &v
}

func (s *Server) listAccessTokens(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Auth.AccessTokens(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]accessTokenDTO, len(list))
	for i, t := range list {
		out[i] = accessTokenDTO{ID: t.ID, Name: t.Name, Scope: string(t.Scope), CreatedAt: rfc3339(t.CreatedAt),
			ExpiresAt: optionalRFC3339(t.ExpiresAt), LastUsedAt: optionalRFC3339(t.LastUsedAt)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createAccessToken(w http.ResponseWriter, r *http.Request) error {
	var req createAccessTokenRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.Name == nil:
		return required("name")
	case req.Scope == nil:
		return required("scope")
	}
	ask := auth.NewAccessToken{Name: *req.Name, Scope: *req.Scope}
	if req.ExpiresAt != nil {
		exp, err := time.Parse(time.RFC3339, *req.ExpiresAt)
		if err != nil {
			return domain.Invalid("expires_at must be an RFC 3339 time, such as 2030-01-31T00:00:00Z")
		}
		ask.ExpiresAt = &exp
	}
	t, secret, err := s.Auth.CreateAccessToken(r.Context(), currentUser(r), ask)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, accessTokenCreated{ID: t.ID, Name: t.Name, Scope: string(t.Scope), Token: secret,
		CreatedAt: rfc3339(t.CreatedAt), ExpiresAt: optionalRFC3339(t.ExpiresAt)})
	return nil
}

func (s *Server) revokeAccessToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.Auth.RevokeAccessToken(r.Context(), currentUser(r), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// authorize authenticates a request to a route that needs a user: a JWT access token of a
// log-in, or a personal access token within its scope. Where the instance requires two factors,
// a user without them may only reach the routes that turn them on.
func (s *Server) authorize(r *http.Request, rt route) (*http.Request, error) {
	ctx := r.Context()
	raw, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	var id uuid.UUID
	if s.Auth != nil && strings.HasPrefix(raw, auth.AccessTokenPrefix) {
		t, err := s.Auth.AuthenticateAccessToken(ctx, raw, endpoint.ClientIP(r, s.TrustedProxies))
		if err != nil {
			return nil, err
		}
		if err := tokenAllows(t.Scope, rt); err != nil {
			return nil, err
		}
		id = t.UserID
	} else {
		var err error
		if id, err = s.authenticate(r); err != nil {
			return nil, err
		}
	}
	if s.Auth != nil && !strings.HasPrefix(rt.pattern, twoFactorPrefix) {
		must, err := s.Auth.MustEnrol(ctx, id)
		if err != nil {
			return nil, err
		}
		if must {
			return nil, errEnrolFirst
		}
	}
	return r.WithContext(context.WithValue(ctx, userKey{}, id)), nil
}

// errEnrolFirst refuses a user without two factors on an instance that requires them.
var errEnrolFirst = domain.Forbidden("This instance requires two-factor authentication: turn it on first " +
	"(POST " + twoFactorPrefix + " with your password, then POST " + twoFactorPrefix + "/confirm with a code)")

// errTokenAccount refuses a personal access token on the account's own routes.
var errTokenAccount = domain.Forbidden("Personal access tokens cannot manage the account (password, e-mail, " +
	"sessions, tokens, two factors, deletion): log in with your password")

// tokenAllows checks that a token of scope may call rt: GET and HEAD need read, other methods
// write, and the admin routes admin (the use case still checks that the user is an admin).
func tokenAllows(scope domain.TokenScope, rt route) error {
	need := domain.ScopeWrite
	switch {
	case strings.HasPrefix(rt.pattern, "/api/v1/account"):
		return errTokenAccount
	case rt.access == accessAdmin || strings.HasPrefix(rt.pattern, "/api/v1/admin"):
		need = domain.ScopeAdmin
	case rt.method == http.MethodGet || rt.method == http.MethodHead:
		need = domain.ScopeRead
	}
	if !scope.Allows(need) {
		return domain.Forbidden("Forbidden: this access token's scope is %s; this request needs the %s scope", scope, need)
	}
	return nil
}
