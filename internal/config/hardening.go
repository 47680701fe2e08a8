package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// Hardening is the durability and client-address settings of issue 16.
type Hardening struct {
	// SQLiteSynchronous is the writer's synchronous setting: "normal" (a commit survives a
	// process crash, the last ones before a power loss may not) or "full" (every commit is
	// synced to disk before it is acknowledged).
	SQLiteSynchronous string `envconfig:"SQLITE_SYNCHRONOUS" default:"normal"`
	// TrustedProxies are the reverse proxies (IPs or CIDR ranges, comma-separated) whose
	// X-Forwarded-For names the client for the per-IP rate limit; empty trusts none.
	TrustedProxies string `envconfig:"TRUSTED_PROXIES"`
}

// TrustedProxyPrefixes is TRUSTED_PROXIES parsed: each entry an address (a /32 or /128) or a
// CIDR range.
func (c Config) TrustedProxyPrefixes() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(c.TrustedProxies, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or CIDR range", f)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or CIDR range", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func (c Config) validateHardening() error {
	switch strings.ToLower(c.SQLiteSynchronous) {
	case "normal", "full":
	default:
		return fmt.Errorf("SQLITE_SYNCHRONOUS: %q is not a setting (normal or full)", c.SQLiteSynchronous)
	}
	_, err := c.TrustedProxyPrefixes()
	return err
}

// Synchronous is SQLITE_SYNCHRONOUS in the store's spelling ("normal" or "full").
func (c Config) Synchronous() string { return strings.ToLower(c.SQLiteSynchronous) }
