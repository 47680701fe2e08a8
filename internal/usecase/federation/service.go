package federation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Deps are the service's ports; the SQLite store is every store port, the ActivityPub adapter
// the Remote and the Encode.
type Deps struct {
	Accounts     Accounts
	Blocks       Blocks
	Reviews      Reviews
	Goals        Goals
	Follows      Follows
	Publications Publications
	Inbox        Inbox
	Remote       Remote
	Encode       Encoder
	// Deliveries, when set, is where Deliver hands deliveries to the delivery lane (the
	// worker); without it Deliver sends at once (tools and tests that run no lane).
	Deliveries Deliveries
	// Wake tells the lane a delivery was handed off (nil: it finds it within its poll).
	Wake func()
}

// Config configures the service; zero fields take defaults.
type Config struct {
	// BaseURL is the instance's public origin; actors are {BaseURL}/users/{uuid}.
	BaseURL string
	Logger  *slog.Logger
	// Now is the clock (a remote review without a publication date is dated now).
	Now func() time.Time
}

// Service is the federation policy; the adapter's routes and worker handlers call it.
type Service struct {
	ports Deps
	urls  URLs
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	ignored map[string]int64 // inbound activities acknowledged and dropped, by reason
}

// New builds the service over its ports.
func New(d Deps, cfg Config) (*Service, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("federation: base URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	if d.Accounts == nil || d.Blocks == nil || d.Reviews == nil || d.Goals == nil || d.Follows == nil || d.Publications == nil ||
		d.Inbox == nil || d.Remote == nil || d.Encode == nil {
		return nil, errors.New("federation: every port is required")
	}
	s := &Service{ports: d, urls: URLs{Base: base}, log: cmp.Or(cfg.Logger, slog.Default()), now: cfg.Now,
		ignored: map[string]int64{}}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// URLs returns the names of this instance's actors and objects.
func (s *Service) URLs() URLs { return s.urls }

// ErrDomainBlocked marks traffic refused because its instance is blocked.
var ErrDomainBlocked = errors.New("domain blocked")

// RefuseHost reports, as a permanent error, that the host of a URL is blocked (wrapping
// ErrDomainBlocked) or that the URL has none; a failed read of the blocks is returned as it is.
func (s *Service) RefuseHost(ctx context.Context, raw string) error {
	host := HostOf(raw)
	if host == "" {
		return domain.Permanent(fmt.Errorf("%q has no host", raw))
	}
	blocked, err := s.ports.Blocks.DomainBlocked(ctx, host)
	if err != nil {
		return err
	}
	if blocked {
		return domain.Permanent(fmt.Errorf("%w: %s", ErrDomainBlocked, host))
	}
	return nil
}

// blockedIn reports whether host is one of domains or under one of them.
func blockedIn(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// Reasons an inbound activity is acknowledged and dropped, the keys of Ignored.
const (
	IgnoredNotReview     = "not a review"     // a Create or Update of a Note that is no review (a plain post)
	IgnoredBadReview     = "invalid review"   // a review Note that breaks a rule (its id, rating, movie)
	IgnoredUnhandledType = "unhandled type"   // an activity type we do not act on (not stored)
	IgnoredNotOurs       = "not about us"     // about an object or actor that is not ours
	IgnoredBlocked       = "blocked instance" // its instance was blocked after it arrived
)

// ignore logs (at debug) and counts an inbound activity we acknowledge and drop, so dropping is
// never silent.
func (s *Service) ignore(ctx context.Context, activityID, typ, reason string, detail error) {
	s.mu.Lock()
	s.ignored[reason]++
	s.mu.Unlock()
	attrs := []any{"activity_id", activityID, "type", typ, "reason", reason}
	if detail != nil {
		attrs = append(attrs, "detail", detail.Error())
	}
	s.log.DebugContext(ctx, "inbound activity acknowledged and dropped", attrs...)
}

// Ignored counts the inbound activities acknowledged and dropped since start, by reason (the
// Ignored* constants); the adapter exports them as a metric.
func (s *Service) Ignored() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.ignored))
	for k, v := range s.ignored {
		out[k] = v
	}
	return out
}

// flag reads one of a user's federation settings; a read error is returned (the event is
// retried), so nothing is sent that the user may have turned off: federation fails closed.
func (s *Service) flag(ctx context.Context, user uuid.UUID, pick func(domain.FederationSettings) bool) (bool, error) {
	set, err := s.ports.Accounts.Settings(ctx, user)
	if err != nil {
		return false, fmt.Errorf("read federation settings: %w", err)
	}
	return pick(set), nil
}
