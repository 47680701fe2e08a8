package activitypub_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
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

// TestCreatedAndExpires: an hs2019 signature may sign its own created and expires parameters
// through the (created) and (expires) pseudo-headers instead of a Date header; it verifies while
// fresh and unexpired, and is refused when made too long ago or expired.
func TestCreatedAndExpires(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"Follow"}`)
	now := time.Now()
	sign := func(created, expires time.Time) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "https://b.example/inbox", bytes.NewReader(body))
		req.Header.Set("Digest", activitypub.Digest(body))
		signing := fmt.Sprintf("(request-target): post /inbox\n(created): %d\n(expires): %d\nhost: b.example\ndigest: %s",
			created.Unix(), expires.Unix(), activitypub.Digest(body))
		sum := sha256.Sum256([]byte(signing))
		sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Signature", fmt.Sprintf(`keyId="https://a.example/users/1#main-key",algorithm="hs2019",created=%d,expires=%d,`+
			`headers="(request-target) (created) (expires) host digest",signature="%s"`, created.Unix(), expires.Unix(),
			base64.StdEncoding.EncodeToString(sig)))
		return req
	}
	for name, c := range map[string]struct {
		created, expires time.Time
		ok               bool
	}{
		"fresh":   {now, now.Add(time.Hour), true},
		"expired": {now.Add(-2 * time.Minute), now.Add(-time.Minute), false},
		"old":     {now.Add(-time.Hour), now.Add(time.Hour), false},
	} {
		req := sign(c.created, c.expires)
		p, err := activitypub.ParseSignature(req.Header.Get("Signature"))
		if err != nil {
			t.Fatal(err)
		}
		err = activitypub.VerifyRequest(req, body, p, &key.PublicKey, now, 5*time.Minute)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", name, err, c.ok)
		}
	}
}
