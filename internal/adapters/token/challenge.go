package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// ChallengeTTL is how long a two-factor log-in's challenge works: time to open an authenticator
// app and type a code.
const ChallengeTTL = 5 * time.Minute

// challengeAudience marks a challenge, so no one mistakes it for something else.
const challengeAudience = "mfa-challenge"

// challengeKey is the key challenges are signed with: derived from the secret, not the secret, so
// a challenge (whose holder knows only the password) never verifies as an access token, nor an
// access token as a challenge.
func (s *Signer) challengeKey() []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("moviesdiary two-factor challenge"))
	return m.Sum(nil)
}

// IssueChallenge signs the challenge a password step hands a user with two factors: the code
// step takes it back with a code within ChallengeTTL.
func (s *Signer) IssueChallenge(userID uuid.UUID, now time.Time) (string, time.Time, error) {
	exp := now.Add(ChallengeTTL).Truncate(time.Second)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: userID.String(), Audience: jwt.ClaimStrings{challengeAudience}, ExpiresAt: jwt.NewNumericDate(exp),
	})
	signed, err := t.SignedString(s.challengeKey())
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign challenge: %w", err)
	}
	return signed, exp, nil
}

// VerifyChallenge checks a challenge as Verify checks an access token, with its own key and
// audience, and returns its user.
func (s *Signer) VerifyChallenge(raw string) (uuid.UUID, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return s.challengeKey(), nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(), jwt.WithAudience(challengeAudience),
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
