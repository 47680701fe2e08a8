// Package token issues and verifies the API's access tokens: JWTs signed with HS256 whose only
// claims are sub (the user id) and exp.
package token

import (
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// TTLDefault is an access token's life (900 s, as in the original API).
const TTLDefault = 900 * time.Second

// MinSecretLen is the shortest signing secret accepted, in bytes.
const MinSecretLen = 16

// Signer signs and verifies access tokens with one secret.
type Signer struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// New returns a signer; ttl 0 means TTLDefault.
func New(secret []byte, ttl time.Duration) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("token: secret must be at least %d bytes", MinSecretLen)
	}
	if ttl <= 0 {
		ttl = TTLDefault
	}
	return &Signer{secret: secret, ttl: ttl, now: time.Now}, nil
}

// Issue returns a token for userID expiring ttl after now.
func (s *Signer) Issue(userID uuid.UUID, now time.Time) (string, time.Time, error) {
	exp := now.Add(s.ttl).Truncate(time.Second)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   userID.String(),
		ExpiresAt: jwt.NewNumericDate(exp),
	})
	signed, err := t.SignedString(s.secret)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return signed, exp, nil
}

// errInvalid is the one answer to every bad token.
var errInvalid = domain.Errorf(domain.KindUnauthorized, "Unauthorized: Invalid or expired token")

// Verify checks the signature (HS256 only: "none" and every other algorithm are refused), that
// exp is present and not past, and returns the user id in sub.
func (s *Signer) Verify(raw string) (uuid.UUID, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now),
	)
	if err != nil {
		return uuid.Nil, errInvalid
	}
	id, err := uuid.Parse(claims.Subject)
	if err != nil || id == uuid.Nil {
		return uuid.Nil, errInvalid
	}
	return id, nil
}
