package activitypub

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"moviesdiary/internal/domain"
)

// Client defaults.
const (
	// FetchTimeoutDefault bounds one outbound request, connection to last byte.
	FetchTimeoutDefault = 10 * time.Second
	// MaxResponseDefault bounds a fetched document (an actor, a WebFinger answer, an outbox page).
	MaxResponseDefault = 1 << 20
	userAgent          = "moviesdiary (+ActivityPub)"
)

// ClientConfig configures a Client; zero fields take the defaults above.
type ClientConfig struct {
	// AllowPrivate lets requests reach loopback, private, link-local and multicast addresses
	// (FEDERATION_ALLOW_PRIVATE; tests federate over loopback). Off, they are refused.
	AllowPrivate bool
	Timeout      time.Duration
	MaxResponse  int64
}

// Client makes the outbound federation requests: WebFinger, actor and outbox fetches, inbox
// deliveries. Its dialer checks every address it connects to, after DNS resolution and on every
// redirect, so a hostile document cannot point us at our own network: code.dny.dev/ssrf refuses
// every prefix of the IANA special-purpose registries (loopback, private, CGNAT, benchmarking,
// reserved, NAT64, 6to4, Teredo, ...) and every IPv6 address outside global unicast.
type Client struct {
	http    *http.Client
	maxBody int64
	// signing bounds the RSA signatures computed at once to half the CPUs: a fan-out to
	// thousands of inboxes signs each request, and unbounded it would take every core from the
	// worker's other handlers (and the server beside it) while the network waits cost nothing.
	signing chan struct{}
}

// sign signs req as signer, holding one of the client's signing slots.
func (c *Client) sign(ctx context.Context, req *http.Request, signer Signer, body []byte) error {
	select {
	case c.signing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.signing }()
	return Sign(req, signer.KeyID, signer.Key, body)
}

// ErrForbiddenAddress is returned for a URL that resolves to an address the SSRF guard refuses.
var ErrForbiddenAddress = errors.New("address not allowed for federation")

// NewClient builds a client.
func NewClient(cfg ClientConfig) *Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if !cfg.AllowPrivate {
		guard := ssrf.New(ssrf.WithAnyPort())
		dialer.Control = func(network, address string, conn syscall.RawConn) error {
			if err := guard.Safe(network, address, conn); err != nil {
				return fmt.Errorf("%w: %w", ErrForbiddenAddress, err)
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us and bypass the guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: cmp.Or(cfg.Timeout, FetchTimeoutDefault),
	}
	return &Client{
		http: &http.Client{
			Transport: transport,
			Timeout:   cmp.Or(cfg.Timeout, FetchTimeoutDefault),
			CheckRedirect: func(_ *http.Request, via []*http.Request) error {
				if len(via) >= 3 {
					return errors.New("too many redirects")
				}
				return nil
			},
		},
		maxBody: cmp.Or(cfg.MaxResponse, MaxResponseDefault),
		signing: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
	}
}

// Signer signs outbound requests as a local actor.
type Signer struct {
	KeyID string
	Key   *rsa.PrivateKey
}

// StatusError is a non-2xx answer. A 4xx other than 408 and 429 is permanent (the same request
// will be refused again); the rest are transient.
type StatusError struct {
	URL    string
	Status int
	Body   string
	// Wait is the pause the remote asked for with Retry-After (a 429 or 503), 0 when none.
	Wait time.Duration
}

// HTTPStatus is the remote's status code.
func (e *StatusError) HTTPStatus() int { return e.Status }

// RetryAfter is the pause the remote asked for, if any.
func (e *StatusError) RetryAfter() (time.Duration, bool) { return e.Wait, e.Wait > 0 }

// retryAfter reads a Retry-After header at now: seconds, or an HTTP date; 0 when absent or
// unreadable or past.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil {
		return max(time.Duration(secs)*time.Second, 0)
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered %d %s", e.URL, e.Status, strings.TrimSpace(e.Body))
}

// Permanent reports whether retrying cannot help.
func (e *StatusError) Permanent() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && e.Status != http.StatusRequestTimeout
}

// classify marks a permanent failure with domain.Permanent: a refused status, a forbidden
// address, a malformed URL. Network errors and timeouts stay transient.
func classify(err error) error {
	var se *StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.Permanent(), errors.Is(err, ErrForbiddenAddress):
		return domain.Permanent(err)
	}
	return err
}

// Get fetches an ActivityPub (or JSON) document, signed when signer is not nil.
func (c *Client) Get(ctx context.Context, rawURL, accept string, signer *Signer) ([]byte, error) {
	if err := checkURL(rawURL); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, domain.Permanent(fmt.Errorf("get %s: %w", rawURL, err))
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", userAgent)
	if signer != nil {
		if err := c.sign(ctx, req, *signer, nil); err != nil {
			return nil, err
		}
	}
	body, err := c.do(req)
	if err != nil {
		return nil, classify(fmt.Errorf("get %s: %w", rawURL, err))
	}
	return body, nil
}

// Post delivers an activity to an inbox, signed.
func (c *Client) Post(ctx context.Context, inbox string, activity []byte, signer Signer) error {
	if err := checkURL(inbox); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, inbox, bytes.NewReader(activity))
	if err != nil {
		return domain.Permanent(fmt.Errorf("post %s: %w", inbox, err))
	}
	req.Header.Set("Content-Type", ContentType)
	req.Header.Set("Accept", ContentType)
	req.Header.Set("User-Agent", userAgent)
	if err := c.sign(ctx, req, signer, activity); err != nil {
		return err
	}
	if _, err := c.do(req); err != nil {
		return classify(fmt.Errorf("deliver to %s: %w", inbox, err))
	}
	return nil
}

// do sends req and returns the body of a 2xx answer, at most maxBody bytes.
func (c *Client) do(req *http.Request) ([]byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{URL: req.URL.String(), Status: resp.StatusCode, Body: string(body[:min(len(body), 200)]),
			Wait: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	if int64(len(body)) > c.maxBody {
		return nil, domain.Permanent(fmt.Errorf("response over %d bytes", c.maxBody))
	}
	return body, nil
}

// checkURL accepts absolute http(s) URLs only.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return domain.Permanent(fmt.Errorf("%q is not an http(s) URL", raw))
	}
	return nil
}
