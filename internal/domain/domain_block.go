package domain

import (
	"net/url"
	"regexp"
	"strings"
	"time"
)

// DomainBlock is an instance whose federation traffic is refused both ways, with the admin's
// reason ("" for none).
type DomainBlock struct {
	Domain    string
	Reason    string
	BlockedAt time.Time
}

// MaxBlockReasonLength bounds a domain block's reason.
const MaxBlockReasonLength = 1000

var hostnamePattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// NormalizeBlockedDomain turns what an admin typed into the host a block matches: lowercased,
// without a trailing dot, and taken out of a URL ("https://example.social/@x" is
// "example.social"). Blocking a domain blocks its subdomains too. Non-ASCII names must be given
// in their punycode ("xn--") form.
func NormalizeBlockedDomain(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", Invalid("domain %q is not a host name", s)
		}
		s = u.Hostname()
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 || !hostnamePattern.MatchString(s) {
		return "", Invalid("domain %q is not a host name (use the punycode form of a non-ASCII name)", s)
	}
	return s, nil
}
