package tmdb

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"moviesdiary/internal/domain"
)

// Defaults for Config.
const (
	// ImageURLDefault is TMDb's image CDN; an image URL is ImageURL/{size}{file path}.
	ImageURLDefault = "https://image.tmdb.org/t/p"
	// TimeoutDefault bounds one API call, connection to last byte.
	TimeoutDefault = 10 * time.Second
	// ImageTimeoutDefault bounds one image download.
	ImageTimeoutDefault = 30 * time.Second
	// MaxJSONBytesDefault bounds an API response body; a movie with full credits is ~100 KiB.
	MaxJSONBytesDefault = 4 << 20
	// MaxImageBytesDefault bounds a downloaded image; a w500 poster is ~100 KiB.
	MaxImageBytesDefault = 10 << 20
)

// Config configures a Client; zero fields take the defaults above.
type Config struct {
	APIURL   string // APIURL is the API base, e.g. https://api.themoviedb.org/3.
	ImageURL string
	APIKey   string
	// Timeout bounds every API call and ImageTimeout every image download, whatever the
	// http.Client's own timeout.
	Timeout       time.Duration
	ImageTimeout  time.Duration
	MaxJSONBytes  int64
	MaxImageBytes int64
	// RequestsPerSecond and RateBurst pace the API calls (not image downloads): zero takes
	// RateDefault and RateBurstDefault, a negative rate is unlimited (a local fake).
	RequestsPerSecond float64
	RateBurst         int
	// MaxRateWait bounds how long one call waits for 429s' Retry-After before it returns the
	// 429 as a transient error; zero takes MaxRateWaitDefault, negative never waits.
	MaxRateWait time.Duration
	// HTTP is the transport (tests pass an httptest server's client); nil for a default client.
	HTTP *http.Client
}

// Client calls the TMDb API and its image CDN. Its errors say how a caller should react: a 404
// is permanent and matches domain.ErrNotFound, a 401/403 or other 4xx is permanent (a bad key or
// request will not heal by retrying), a 429 or 5xx or a network failure is transient, with the
// 429's Retry-After in *StatusError. API calls are paced (RequestsPerSecond), and a 429 is
// waited out and retried within MaxRateWait, every concurrent call pausing with it, so a burst
// of enrichment is slowed down rather than failed and dead-lettered.
type Client struct {
	cfg  Config
	http *http.Client
	pace *pacer
}

// New returns a client of the API at baseURL; a nil hc gets a default client.
func New(baseURL, apiKey string, hc *http.Client) *Client {
	return NewClient(Config{APIURL: baseURL, APIKey: apiKey, HTTP: hc})
}

// NewClient returns a client configured by cfg.
func NewClient(cfg Config) *Client {
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	cfg.ImageURL = strings.TrimRight(cmp.Or(cfg.ImageURL, ImageURLDefault), "/")
	cfg.Timeout = cmp.Or(cfg.Timeout, TimeoutDefault)
	cfg.ImageTimeout = cmp.Or(cfg.ImageTimeout, ImageTimeoutDefault)
	cfg.MaxJSONBytes = cmp.Or(cfg.MaxJSONBytes, MaxJSONBytesDefault)
	cfg.MaxImageBytes = cmp.Or(cfg.MaxImageBytes, MaxImageBytesDefault)
	cfg.RequestsPerSecond = cmp.Or(cfg.RequestsPerSecond, RateDefault)
	cfg.RateBurst = cmp.Or(cfg.RateBurst, RateBurstDefault)
	cfg.MaxRateWait = cmp.Or(cfg.MaxRateWait, MaxRateWaitDefault)
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, http: hc, pace: newPacer(cfg.RequestsPerSecond, cfg.RateBurst)}
}

// StatusError is a non-200 answer.
type StatusError struct {
	Path   string
	Status int
	// RetryAfter is the 429's Retry-After, zero when absent.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("tmdb %s: status %d", e.Path, e.Status)
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return msg
}

// get decodes the JSON answer of an API path into v. It waits for the pacer first; a 429 pauses
// every call for its Retry-After (1 s without one) and is retried while the waits fit in
// MaxRateWait.
func (c *Client) get(ctx context.Context, path string, q url.Values, v any) error {
	q.Set("api_key", c.cfg.APIKey)
	var body []byte
	for waited := time.Duration(0); ; {
		if err := c.pace.wait(ctx); err != nil {
			return fmt.Errorf("tmdb %s: %w", path, err)
		}
		var err error
		body, _, err = c.fetch(ctx, c.cfg.APIURL+path+"?"+q.Encode(), path, c.cfg.Timeout, c.cfg.MaxJSONBytes, "application/json")
		var se *StatusError
		if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
			d := cmp.Or(se.RetryAfter, retryAfterDefault)
			if c.cfg.MaxRateWait < 0 || waited+d > c.cfg.MaxRateWait {
				return err
			}
			c.pace.pause(d)
			waited += d
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	if err := json.Unmarshal(body, v); err != nil {
		// Transient: a 200 with a body that is not the JSON TMDb documents is a broken proxy or a
		// truncated answer, not a property of the resource; the attempts bound the retries.
		return fmt.Errorf("tmdb %s: decode: %w", path, err)
	}
	return nil
}

// fetch GETs rawURL (name is what errors say instead of the URL, which carries the API key) and
// returns at most limit bytes of a 200's body with its Content-Type.
func (c *Client) fetch(ctx context.Context, rawURL, name string, timeout time.Duration, limit int64, accept string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", domain.Permanent(fmt.Errorf("tmdb %s: %w", name, err))
	}
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("tmdb %s: %w", name, stripURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, "", classify(&StatusError{Path: name, Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())})
	}
	if resp.ContentLength > limit {
		return nil, "", domain.Permanent(fmt.Errorf("tmdb %s: body of %d bytes exceeds the %d-byte limit", name, resp.ContentLength, limit))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("tmdb %s: read: %w", name, stripURL(err))
	}
	if int64(len(body)) > limit {
		return nil, "", domain.Permanent(fmt.Errorf("tmdb %s: body exceeds the %d-byte limit", name, limit))
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// classify marks a status error permanent or leaves it transient.
func classify(e *StatusError) error {
	switch {
	case e.Status == http.StatusNotFound:
		return domain.Permanent(fmt.Errorf("%w: %w", e, domain.NotFound("tmdb: not found")))
	case e.Status == http.StatusTooManyRequests || e.Status >= 500:
		return e
	default:
		return domain.Permanent(e)
	}
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// stripURL drops the URL *url.Error quotes: it carries the API key.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
