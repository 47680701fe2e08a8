package token

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

func TestVerify(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	s, err := New(secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	now := time.Now()
	good, _, err := s.Issue(user, now)
	if err != nil {
		t.Fatal(err)
	}
	expired, _, _ := s.Issue(user, now.Add(-2*time.Minute))
	other, _ := New([]byte("another secret of thirty-two by"), time.Minute)
	forged, _, _ := other.Issue(user, now)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.RegisteredClaims{
		Subject: user.String(), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
	}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: user.String()}).SignedString(secret)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.RegisteredClaims{
		Subject: user.String(), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
	}).SignedString(secret)
	parts := strings.Split(good, ".")
	otherSub := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + uuid.NewString() + `","exp":9999999999}`))
	tampered := parts[0] + "." + otherSub + "." + parts[2]

	got, err := s.Verify(good)
	if err != nil || got != user {
		t.Fatalf("Verify(good) = %v, %v; want %v", got, err, user)
	}
	for name, tok := range map[string]string{
		"expired": expired, "forged": forged, "alg none": none, "no exp": noExp, "hs512": hs512,
		"tampered": tampered, "garbage": "not.a.token", "empty": "",
	} {
		if _, err := s.Verify(tok); !errors.Is(err, domain.ErrUnauthorized) {
			t.Errorf("Verify(%s) = %v, want an Unauthorized error", name, err)
		}
	}
}
