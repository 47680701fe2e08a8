package activitypub

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxClockSkewDefault is how far an inbound request's Date may be from our clock, either way.
// It bounds how long a captured request can be replayed (the inbox's id dedup covers the rest).
const MaxClockSkewDefault = 5 * time.Minute

// Digest is the Digest header value of body: SHA-256, base64.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

// Sign sets Date (if unset), Digest (when body is not nil) and a draft-cavage rsa-sha256
// Signature over "(request-target) host date" plus "digest" when there is a body. keyID is the
// key's URL, {actor}#main-key.
func Sign(req *http.Request, keyID string, key *rsa.PrivateKey, body []byte) error {
	if req.Header.Get("Date") == "" {
		req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	headers := []string{"(request-target)", "host", "date"}
	if body != nil {
		req.Header.Set("Digest", Digest(body))
		headers = append(headers, "digest")
	}
	signing, err := signingString(req, headers, SignatureParams{})
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		return fmt.Errorf("sign request: %w", err)
	}
	req.Header.Set("Signature", fmt.Sprintf(`keyId="%s",algorithm="rsa-sha256",headers="%s",signature="%s"`,
		keyID, strings.Join(headers, " "), base64.StdEncoding.EncodeToString(sig)))
	return nil
}

// signingString builds the string a signature covers, one "name: value" line per header.
func signingString(req *http.Request, headers []string, p SignatureParams) (string, error) {
	lines := make([]string, 0, len(headers))
	for _, h := range headers {
		var v string
		switch h {
		case "(request-target)":
			v = strings.ToLower(req.Method) + " " + req.URL.RequestURI()
		case "host":
			v = req.Host
			if v == "" {
				v = req.URL.Host
			}
		case "(created)", "(expires)":
			// hs2019's pseudo-headers are the signature's own created and expires parameters.
			n := p.Created
			if h == "(expires)" {
				n = p.Expires
			}
			if n == 0 {
				return "", fmt.Errorf("signed %s has no parameter", h)
			}
			v = strconv.FormatInt(n, 10)
		case "content-length":
			// net/http moves an inbound Content-Length out of the header map (Akkoma and
			// Pleroma sign it).
			v = req.Header.Get("Content-Length")
			if v == "" && req.ContentLength >= 0 {
				v = strconv.FormatInt(req.ContentLength, 10)
			}
		default:
			vals := req.Header.Values(h)
			if len(vals) == 0 {
				return "", fmt.Errorf("signed header %q is missing", h)
			}
			v = strings.Join(vals, ", ")
		}
		lines = append(lines, h+": "+v)
	}
	return strings.Join(lines, "\n"), nil
}

// SignatureParams are the fields of a Signature header.
type SignatureParams struct {
	KeyID     string
	Algorithm string
	Headers   []string
	Signature []byte
	// Created and Expires are hs2019's created and expires parameters (Unix seconds; 0 when
	// absent), which the (created) and (expires) pseudo-headers sign.
	Created, Expires int64
}

// ParseSignature reads a Signature header (or an Authorization: Signature value).
func ParseSignature(header string) (SignatureParams, error) {
	var p SignatureParams
	header = strings.TrimPrefix(strings.TrimSpace(header), "Signature ")
	for _, part := range splitParams(header) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.TrimSpace(k) {
		case "keyId":
			p.KeyID = v
		case "algorithm":
			p.Algorithm = v
		case "headers":
			p.Headers = strings.Fields(strings.ToLower(v))
		case "created", "expires":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return p, fmt.Errorf("signature: %s is not a number", k)
			}
			if strings.TrimSpace(k) == "created" {
				p.Created = n
			} else {
				p.Expires = n
			}
		case "signature":
			sig, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return p, fmt.Errorf("signature: not base64: %w", err)
			}
			p.Signature = sig
		}
	}
	if p.KeyID == "" || len(p.Signature) == 0 {
		return p, errors.New("signature: keyId and signature are required")
	}
	if len(p.Headers) == 0 {
		p.Headers = []string{"date"} // the draft's default
	}
	return p, nil
}

// splitParams splits on the commas outside quotes.
func splitParams(s string) []string {
	var out []string
	quoted, start := false, 0
	for i, c := range s {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// ErrSignature is the cause of every rejected signature; the inbox answers 401.
var ErrSignature = errors.New("http signature rejected")

// CheckHeaders checks what a signed request carries before any key is looked up, so a request
// that would fail anyway never makes us fetch a URL of its sender's choosing: the algorithm,
// that the signature covers (request-target), host, date and (with a body) digest, that Date is
// within skew of now and that the Digest header matches body. Every failure wraps ErrSignature.
func CheckHeaders(req *http.Request, body []byte, p SignatureParams, now time.Time, skew time.Duration) error {
	switch strings.ToLower(p.Algorithm) {
	case "", "rsa-sha256", "hs2019":
	default:
		return sigFail("algorithm %q is not supported", p.Algorithm)
	}
	need := []string{"(request-target)", "host"}
	if len(body) > 0 {
		need = append(need, "digest")
	}
	for _, h := range need {
		if !slices.Contains(p.Headers, h) {
			return sigFail("the signature does not cover %q", h)
		}
	}
	// The signed time: the Date header, or hs2019's (created) (which may stand for it).
	var signedAt time.Time
	switch {
	case slices.Contains(p.Headers, "date"):
		date, err := http.ParseTime(req.Header.Get("Date"))
		if err != nil {
			return sigFail("bad Date header")
		}
		signedAt = date
	case slices.Contains(p.Headers, "(created)") && p.Created > 0:
		signedAt = time.Unix(p.Created, 0)
	default:
		return sigFail("the signature covers neither date nor (created)")
	}
	if d := now.Sub(signedAt); d > skew || d < -skew {
		return sigFail("the signature was made %s away from now (allowed %s)", d.Round(time.Second), skew)
	}
	if p.Expires > 0 && now.After(time.Unix(p.Expires, 0)) {
		return sigFail("the signature expired")
	}
	if len(body) > 0 || req.Header.Get("Digest") != "" {
		if !digestMatches(req.Header.Values("Digest"), body) {
			return sigFail("Digest does not match the body")
		}
	}
	return nil
}

// digestMatches reports whether one of the Digest header's SHA-256 values is body's (the
// algorithm name is case-insensitive; other algorithms are ignored).
func digestMatches(values []string, body []byte) bool {
	want := Digest(body)[len("SHA-256="):]
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			alg, sum, ok := strings.Cut(strings.TrimSpace(d), "=")
			if ok && strings.EqualFold(alg, "SHA-256") && subtle.ConstantTimeCompare([]byte(sum), []byte(want)) == 1 {
				return true
			}
		}
	}
	return false
}

// VerifySignature checks the RSA signature itself over the headers it names.
func VerifySignature(req *http.Request, p SignatureParams, key *rsa.PublicKey) error {
	signing, err := signingString(req, p.Headers, p)
	if err != nil {
		return sigFail("%v", err)
	}
	sum := sha256.Sum256([]byte(signing))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], p.Signature); err != nil {
		return sigFail("bad signature")
	}
	return nil
}

// VerifyRequest is CheckHeaders and VerifySignature: an inbound request's signature checked
// against key.
func VerifyRequest(req *http.Request, body []byte, p SignatureParams, key *rsa.PublicKey, now time.Time, skew time.Duration) error {
	if err := CheckHeaders(req, body, p, now, skew); err != nil {
		return err
	}
	return VerifySignature(req, p, key)
}

func sigFail(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSignature, fmt.Sprintf(format, args...))
}
