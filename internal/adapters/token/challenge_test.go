package token

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestChallengeIsNoAccessToken: a two-factor challenge verifies only as a challenge, an access
// token only as an access token, and an expired challenge not at all.
func TestChallengeIsNoAccessToken(t *testing.T) {
	s, err := New([]byte("0123456789abcdef0123456789abcdef"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	user, now := uuid.New(), time.Now()
	c, exp, err := s.IssueChallenge(user, now)
	if err != nil || exp.Sub(now) > ChallengeTTL || exp.Sub(now) < ChallengeTTL-time.Second {
		t.Fatalf("challenge expires %v, %v", exp, err)
	}
	if got, err := s.VerifyChallenge(c); err != nil || got != user {
		t.Fatalf("VerifyChallenge = %v, %v", got, err)
	}
	if _, err := s.Verify(c); err == nil {
		t.Fatal("a challenge verified as an access token")
	}
	access, _, _ := s.Issue(user, now)
	if _, err := s.VerifyChallenge(access); err == nil {
		t.Fatal("an access token verified as a challenge")
	}
	old, _, _ := s.IssueChallenge(user, now.Add(-ChallengeTTL-time.Minute))
	if _, err := s.VerifyChallenge(old); err == nil {
		t.Fatal("an expired challenge verified")
	}
}
