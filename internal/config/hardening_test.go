package config

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
)

func clearHardening(t *testing.T) {
	clearEnv(t)
	for _, v := range []string{"SQLITE_SYNCHRONOUS", "TRUSTED_PROXIES"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// TestHardeningDefaults: synchronous is normal and no proxy is trusted unless configured.
func TestHardeningDefaults(t *testing.T) {
	clearHardening(t)
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.TrustedProxyPrefixes(); err != nil || len(p) != 0 || c.SQLiteSynchronous != "normal" {
		t.Errorf("defaults: synchronous %q, trusted proxies %v (%v)", c.SQLiteSynchronous, p, err)
	}
}

func TestTrustedProxies(t *testing.T) {
	clearHardening(t)
	t.Setenv("TRUSTED_PROXIES", "10.0.0.1, 172.16.0.0/12,::1")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := c.TrustedProxyPrefixes()
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("::1/128")}
	if !slices.Equal(got, want) {
		t.Errorf("prefixes = %v, want %v", got, want)
	}
}

func TestBadHardeningValuesNameTheVariable(t *testing.T) {
	for v, val := range map[string]string{"SQLITE_SYNCHRONOUS": "off", "TRUSTED_PROXIES": "10.0.0.1,proxy.local"} {
		t.Run(v, func(t *testing.T) {
			clearHardening(t)
			t.Setenv(v, val)
			if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), v+":") {
				t.Errorf("%s=%s: %v, want an error naming it", v, val, err)
			}
		})
	}
}
