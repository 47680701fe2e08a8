package activitypub_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-fed/httpsig"

	"moviesdiary/internal/adapters/activitypub"
)

// TestSignatureInterop checks our draft-cavage rsa-sha256 signatures against an independent
// implementation (go-fed/httpsig) in both directions, for a POST with a body and a GET.
func TestSignatureInterop(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const keyID = "https://a.example/users/1#main-key"
	body := []byte(`{"type":"Create"}`)
	for _, withBody := range []bool{true, false} {
		// Ours → go-fed.
		var req *http.Request
		if withBody {
			req = httptest.NewRequest(http.MethodPost, "https://b.example/users/2/inbox?x=1", bytes.NewReader(body))
			err = activitypub.Sign(req, keyID, key, body)
		} else {
			req = httptest.NewRequest(http.MethodGet, "https://b.example/users/2/outbox?page=1", nil)
			err = activitypub.Sign(req, keyID, key, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		v, err := httpsig.NewVerifier(req)
		if err != nil {
			t.Fatal(err)
		}
		if v.KeyId() != keyID {
			t.Errorf("keyId %q", v.KeyId())
		}
		if err := v.Verify(&key.PublicKey, httpsig.RSA_SHA256); err != nil {
			t.Errorf("go-fed rejects our signature (body %v): %v", withBody, err)
		}
	}

	// go-fed → ours, and a tampered copy is refused.
	req := httptest.NewRequest(http.MethodPost, "https://b.example/inbox", bytes.NewReader(body))
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.Host)
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := signer.SignRequest(key, keyID, req, body); err != nil {
		t.Fatal(err)
	}
	req.Header.Del("Host") // a server sees the host in req.Host
	p, err := activitypub.ParseSignature(req.Header.Get("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	if err := activitypub.VerifyRequest(req, body, p, &key.PublicKey, time.Now(), time.Minute); err != nil {
		t.Errorf("we reject go-fed's signature: %v", err)
	}
	if err := activitypub.VerifyRequest(req, []byte(`{"type":"Delete"}`), p, &key.PublicKey, time.Now(), time.Minute); err == nil {
		t.Error("a changed body passed verification")
	}
	req.URL.Path = "/users/9/inbox"
	if err := activitypub.VerifyRequest(req, body, p, &key.PublicKey, time.Now(), time.Minute); err == nil {
		t.Error("a changed request target passed verification")
	}
}
