package config

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
)

// ourPrefixes start only our variables: a variable that starts with one but is no setting is a
// typo or a setting of another version (EVENT_QUEUE_MAX_ATTEMTPS, TMDB_KEY). Generic words that
// other software uses too (HOST, PORT, LOG, DATA, BASE) are not prefixes here; their
// misspellings are caught by distance.
var ourPrefixes = []string{
	"EVENT_QUEUE_", "EVENT_BUS_", "NATS_", "TMDB_", "FEDERATION_", "IMAGE_", "JWT_", "DATABASE_",
	"SQLITE_", "WORKER_", "SERVER_", "CHAOS_", "POSTER_", "ENRICHMENT_", "REFRESH_TTL", "WEB_CLIENT",
	"CORS_", "TRUSTED_PROX", "ALLOW_REGISTRATION", "SHUTDOWN_GRACE", "RATE_LIMIT", "OIDC_", "SMTP_",
}

// otherReaders are variables our binaries read outside Config: the test harnesses' child
// process markers.
var otherReaders = []string{"WORKER_TEST_CHILD", "SQLITE_TEST_MIGRATE_CHILD"}

// Suspect is an environment variable that looks like a setting but is none: a misspelling
// (PROT, EVENT_QUEUE_MAX_ATTEMTPS, port) or one this version does not have. Such a variable is
// silently ignored, so the process would run on the default the operator meant to change.
type Suspect struct {
	Name string
	// Meant is the setting it most likely means; empty when none is close.
	Meant string
}

// Suspects returns the variables of environ (os.Environ's NAME=value form) that look like ours
// but are not: close to a setting's name (a distance of one edit, two for names over six
// letters; case ignored), or starting with one of our prefixes.
func Suspects(environ []string) []Suspect {
	known := map[string]bool{}
	for _, s := range settings(&Config{}) {
		known[s.name] = true
		if s.secret {
			known[s.name+FileSuffix] = true
		}
	}
	for _, n := range otherReaders {
		known[n] = true
	}
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Suspect
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if name == "" || known[name] || serviceLink(name, value) {
			continue
		}
		upper := strings.ToUpper(name)
		meant, best := "", 1<<30
		for _, k := range names {
			if d := editDistance(upper, k); d < best {
				meant, best = k, d
			}
		}
		ours := slices.ContainsFunc(ourPrefixes, func(p string) bool { return strings.HasPrefix(upper, p) })
		switch {
		case best <= maxTypo(meant):
		case ours && best <= len(meant)/3:
		case ours:
			meant = ""
		default:
			continue
		}
		out = append(out, Suspect{Name: name, Meant: meant})
	}
	return out
}

// kubeServiceVar is a variable Kubernetes sets for each service of the namespace
// (NATS_SERVICE_HOST, NATS_PORT_4222_TCP_ADDR for a service named nats).
var kubeServiceVar = regexp.MustCompile(`_SERVICE_(HOST|PORT)(_[A-Z0-9_]+)?$|_PORT_[0-9]+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?$`)

// serviceLink reports whether name=value is a service link set by Kubernetes (or Docker's
// legacy links: NATS_PORT=tcp://10.0.0.5:4222), not an operator's setting.
func serviceLink(name, value string) bool {
	if kubeServiceVar.MatchString(name) {
		return true
	}
	return strings.HasSuffix(name, "_PORT") && (strings.HasPrefix(value, "tcp://") || strings.HasPrefix(value, "udp://"))
}

// maxTypo is how many edits a misspelling of name may be away from it: one for a short name
// (PORT, HOST), where two would reach other software's variables (HOME), two for a longer one.
func maxTypo(name string) int {
	if len(name) <= 6 {
		return 1
	}
	return 2
}

// WarnSuspects logs a warning for each suspect variable of environ, naming the setting it likely
// means. The binaries call it once at start, after the logger is built.
func WarnSuspects(ctx context.Context, log *slog.Logger, environ []string) {
	for _, s := range Suspects(environ) {
		if s.Meant != "" {
			log.WarnContext(ctx, fmt.Sprintf("environment variable %s is not a setting and is ignored; did you mean %s?", s.Name, s.Meant),
				"variable", s.Name, "did_you_mean", s.Meant)
			continue
		}
		log.WarnContext(ctx, fmt.Sprintf("environment variable %s looks like a setting but is none and is ignored (the README lists them)", s.Name),
			"variable", s.Name)
	}
}

// editDistance is the optimal string alignment distance of a and b: insertions, deletions,
// substitutions and transpositions of neighbours (PROT → PORT is one edit).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
