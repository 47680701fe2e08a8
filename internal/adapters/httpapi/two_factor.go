package httpapi

import (
	"errors"
	"net/http"
	"time"

	"moviesdiary/internal/usecase/auth"
)

// Two factors (TOTP). A log-in of a user with two factors is two steps: POST /api/v1/auth/login
// answers 401 with a challenge (loginChallenge) instead of tokens, and POST
// /api/v1/auth/login/totp takes the challenge and a code for the usual tokens. Users without two
// factors log in as before.

// twoFactorPrefix is the routes' path; the only ones a user who must enrol may call.
const twoFactorPrefix = "/api/v1/account/totp"

func (s *Server) twoFactorRoutes() []route {
	const get, post, del = http.MethodGet, http.MethodPost, http.MethodDelete
	pw := []int{400, 401, 403, 409, 415, 422, 429}
	return []route{
		{method: post, pattern: "/api/v1/auth/login/totp", summary: "Log in, second step: the password step's challenge and a TOTP or recovery code",
			limited: true, handle: s.loginTwoFactor, request: loginTwoFactorRequest{}, response: loginResponse{}, status: 200,
			errors: []int{400, 401, 415, 422, 429}},
		{method: get, pattern: twoFactorPrefix, summary: "Are my two factors on, and how many recovery codes are left", access: accessUser,
			handle: s.twoFactorStatus, response: twoFactorStatusDTO{}, status: 200, errors: []int{401, 403}},
		{method: post, pattern: twoFactorPrefix, summary: "Begin turning two factors on (current password required): a TOTP secret for an authenticator app",
			access: accessUser, handle: s.beginTwoFactor, request: passwordRequest{}, response: enrolmentDTO{}, status: 200, errors: pw},
		{method: post, pattern: twoFactorPrefix + "/confirm", summary: "Turn two factors on with a first code; returns the recovery codes, shown this once",
			access: accessUser, handle: s.confirmTwoFactor, request: codeRequest{}, response: recoveryCodesDTO{}, status: 200,
			errors: []int{400, 401, 403, 404, 409, 415, 422, 429}},
		{method: post, pattern: twoFactorPrefix + "/recovery-codes", summary: "Replace my recovery codes (current password required)",
			access: accessUser, handle: s.newRecoveryCodes, request: passwordRequest{}, response: recoveryCodesDTO{}, status: 200,
			errors: []int{400, 401, 403, 404, 415, 422, 429}},
		{method: del, pattern: twoFactorPrefix, summary: "Turn two factors off (current password or a code required)", access: accessUser,
			handle: s.disableTwoFactor, request: disableTwoFactorRequest{}, status: 204, errors: pw},
	}
}

// errorBodies are failure bodies beyond the error envelope, by "METHOD pattern" and status, for
// the OpenAPI document.
var errorBodies = map[string]map[int]any{
	"POST /api/v1/auth/login": {http.StatusUnauthorized: loginChallenge{}},
}

// loginChallenge is the 401 body of a right password whose user has two factors: the error
// envelope (so a client unaware of two factors shows the message) with the challenge.
type loginChallenge struct {
	Error       string `json:"error"`
	MFARequired bool   `json:"mfa_required"`
	// Challenge goes to POST /api/v1/auth/login/totp with a code, before ChallengeExpiresAt.
	Challenge          string `json:"challenge"`
	ChallengeExpiresAt string `json:"challenge_expires_at" openapi:"format=date-time"`
}

// writeChallenge answers a log-in that needs a code, and reports whether err was one.
func writeChallenge(w http.ResponseWriter, err error) bool {
	var mfa *auth.SecondFactorRequired
	if !errors.As(err, &mfa) {
		return false
	}
	writeJSON(w, http.StatusUnauthorized, loginChallenge{Error: "Two-factor code required: send the challenge with a code to POST /api/v1/auth/login/totp",
		MFARequired: true, Challenge: mfa.Challenge, ChallengeExpiresAt: mfa.ExpiresAt.UTC().Format(time.RFC3339)})
	return true
}

type loginTwoFactorRequest struct {
	Challenge *string `json:"challenge" openapi:"required,nonnull"`
	// Code is the authenticator app's six digits, or an unused recovery code.
	Code *string `json:"code" openapi:"required,nonnull"`
}

func (s *Server) loginTwoFactor(w http.ResponseWriter, r *http.Request) error {
	var req loginTwoFactorRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.Challenge == nil:
		return required("challenge")
	case req.Code == nil:
		return required("code")
	}
	sess, err := s.Auth.LoginTwoFactor(r.Context(), *req.Challenge, *req.Code)
	if err != nil {
		return err
	}
	writeLogin(w, sess)
	return nil
}

// writeLogin answers a log-in with its session.
func writeLogin(w http.ResponseWriter, sess auth.Session) {
	writeJSON(w, http.StatusOK, loginResponse{
		Token: sess.Token, RefreshToken: sess.RefreshToken, UserID: sess.User.ID, Email: sess.User.Email,
		ExpiresAt: sess.ExpiresAt.UTC().Format(time.RFC3339), Role: string(sess.User.Role),
	})
}

type twoFactorStatusDTO struct {
	Enabled           bool `json:"enabled"`
	RecoveryCodesLeft int  `json:"recovery_codes_left"`
	// Required is true when the instance requires two factors of everyone (REQUIRE_TWO_FACTOR).
	Required bool `json:"required"`
}

func (s *Server) twoFactorStatus(w http.ResponseWriter, r *http.Request) error {
	tf, err := s.Auth.TwoFactorStatus(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, twoFactorStatusDTO{Enabled: tf.Enabled, RecoveryCodesLeft: tf.RecoveryLeft, Required: s.Auth.RequireTwoFactor()})
	return nil
}

type passwordRequest struct {
	CurrentPassword *string `json:"current_password" openapi:"required,nonnull"`
}

type enrolmentDTO struct {
	// Secret is the TOTP secret (base32) to type into an authenticator app.
	Secret string `json:"secret"`
	// OTPAuthURI is the same as an otpauth:// URI (what a QR code holds).
	OTPAuthURI string `json:"otpauth_uri"`
}

func (s *Server) beginTwoFactor(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.CurrentPassword == nil {
		return required("current_password")
	}
	e, err := s.Auth.BeginTwoFactor(r.Context(), currentUser(r), *req.CurrentPassword)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, enrolmentDTO{Secret: e.Secret, OTPAuthURI: e.URI})
	return nil
}

type codeRequest struct {
	Code *string `json:"code" openapi:"required,nonnull"`
}

type recoveryCodesDTO struct {
	// RecoveryCodes each work once in place of a code; they are shown this once.
	RecoveryCodes []string `json:"recovery_codes"`
}

func (s *Server) confirmTwoFactor(w http.ResponseWriter, r *http.Request) error {
	var req codeRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Code == nil {
		return required("code")
	}
	codes, err := s.Auth.ConfirmTwoFactor(r.Context(), currentUser(r), *req.Code)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, recoveryCodesDTO{RecoveryCodes: codes})
	return nil
}

func (s *Server) newRecoveryCodes(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.CurrentPassword == nil {
		return required("current_password")
	}
	codes, err := s.Auth.NewRecoveryCodes(r.Context(), currentUser(r), *req.CurrentPassword)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, recoveryCodesDTO{RecoveryCodes: codes})
	return nil
}

type disableTwoFactorRequest struct {
	// CurrentPassword or Code (a TOTP or recovery code) proves it is the owner.
	CurrentPassword *string `json:"current_password"`
	Code            *string `json:"code"`
}

func (s *Server) disableTwoFactor(w http.ResponseWriter, r *http.Request) error {
	var req disableTwoFactorRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	var pw, code string
	if req.CurrentPassword != nil {
		pw = *req.CurrentPassword
	}
	if req.Code != nil {
		code = *req.Code
	}
	if err := s.Auth.DisableTwoFactor(r.Context(), currentUser(r), pw, code); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
