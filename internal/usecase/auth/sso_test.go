package auth_test

import (
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// TestUsernameFrom: a provider's name for someone becomes a name the username rule accepts, or
// "" when too little of it is left.
func TestUsernameFrom(t *testing.T) {
	for in, want := range map[string]string{
		"alice":                                  "alice",
		"Alice@wonder.land":                      "alice",
		"Jean-Luc Picard":                        "jean-luc-picard",
		"josé.müller":                            "jose-muller",
		"  __x__  ":                              "__x__",
		"a":                                      "",
		"日本":                                     "",
		"@example.org":                           "example-org",
		"x.y":                                    "x-y",
		"averyveryverylongusername-that-goes-on": "averyveryverylongusername-that",
		"runs----of--dashes":                     "runs-of-dashes",
		"thirty-chars-exactly-and-then-.more":    "thirty-chars-exactly-and-then",
	} {
		got := auth.UsernameFrom(in)
		if got != want {
			t.Errorf("UsernameFrom(%q) = %q, want %q", in, got, want)
		}
		if got != "" {
			if n, err := domain.NormalizeUsername(got); err != nil || n != got {
				t.Errorf("UsernameFrom(%q) = %q breaks the username rule: %v", in, got, err)
			}
		}
	}
}
