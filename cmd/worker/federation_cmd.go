package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/usecase/federation"
)

const federationUsage = `usage: worker federation <command> [flags]

commands:
  hosts              the remote servers the delivery lane keeps health for, failing ones first:
                     state (available, open, unavailable), consecutive failures and since when,
                     last success, last error, deliveries waiting
  retry-now HOST     send every delivery waiting for HOST now (its failures forgotten)
  forget HOST        dead-letter every delivery waiting for HOST and drop its health record

every command takes --json for machine-readable output; retry-now and forget take --dry-run.
The schedule is in docs/adr/0005-federation-delivery.md. The database must exist and be
migrated: these commands never create or migrate one.`

// federationStore is what `worker federation` needs of the store.
type federationStore interface {
	FederationHosts(ctx context.Context) ([]federation.HostHealth, error)
	RetryHostNow(ctx context.Context, host string, now time.Time) (int, error)
	ForgetHost(ctx context.Context, host string, now time.Time) (int, error)
	Close() error
}

// federationCommand runs `worker federation …` against the configured database and returns the
// exit status.
func federationCommand(ctx context.Context, cfg config.Config, args []string, now func() time.Time, stdout, stderr io.Writer) int {
	if code, done := (subcommand{name: "federation", usage: federationUsage}).help(args, stderr); done {
		return code
	}
	store, err := openOperator(ctx, cfg)
	if err != nil {
		return (subcommand{name: "federation", usage: federationUsage}).exit(err, stderr)
	}
	defer store.Close()
	return runFederationCommand(ctx, store, args, now, stdout, stderr)
}

func runFederationCommand(ctx context.Context, store federationStore, args []string, now func() time.Time, stdout, stderr io.Writer) int {
	c := federationCmd{eventsCmd: eventsCmd{out: stdout}, store: store, now: now}
	return subcommand{name: "federation", usage: federationUsage, commands: map[string]func(context.Context, []string) error{
		"hosts": c.hosts,
		"retry-now": func(ctx context.Context, args []string) error {
			return c.act(ctx, "retry-now", args, store.RetryHostNow)
		},
		"forget": func(ctx context.Context, args []string) error { return c.act(ctx, "forget", args, store.ForgetHost) },
	}}.run(ctx, args, stderr)
}

type federationCmd struct {
	eventsCmd
	store federationStore
	now   func() time.Time
}

// hostRow is a host as `hosts --json` prints it.
type hostRow struct {
	Host          string     `json:"host"`
	State         string     `json:"state"`
	Failures      int        `json:"failures"`
	FailingSince  *time.Time `json:"failing_since,omitempty"`
	OpenUntil     *time.Time `json:"open_until,omitempty"`
	NextProbeAt   *time.Time `json:"next_probe_at,omitempty"`
	LastSuccessAt *time.Time `json:"last_success_at,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	Waiting       int        `json:"waiting"`
}

func opt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func (c *federationCmd) hosts(ctx context.Context, args []string) error {
	if err := parse(c.flags("hosts"), args); err != nil {
		return err
	}
	hs, err := c.store.FederationHosts(ctx)
	if err != nil {
		return err
	}
	rows := make([]hostRow, len(hs))
	for i, h := range hs {
		rows[i] = hostRow{Host: h.Host, State: string(h.State), Failures: h.Failures, FailingSince: opt(h.FailingSince),
			OpenUntil: opt(h.OpenUntil), NextProbeAt: opt(h.NextProbeAt), LastSuccessAt: opt(h.LastSuccessAt),
			LastError: h.LastError, Waiting: h.Waiting}
	}
	now := c.now()
	ago := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return now.Sub(*t).Round(time.Second).String() + " ago"
	}
	return c.emit(rows, func(w *tabwriter.Writer) {
		fmt.Fprintln(w, "HOST\tSTATE\tFAILURES\tFAILING SINCE\tLAST SUCCESS\tWAITING\tLAST ERROR")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%d\t%s\n", r.Host, r.State, r.Failures, ago(r.FailingSince),
				ago(r.LastSuccessAt), r.Waiting, truncate(r.LastError, 80))
		}
	})
}

// act runs retry-now or forget on the one host named, or with --dry-run says what it would do.
func (c *federationCmd) act(ctx context.Context, name string, args []string, do func(context.Context, string, time.Time) (int, error)) error {
	fs := c.flags(name)
	dry := fs.Bool("dry-run", false, "show what would change")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: %s takes one host", errUsage, name)
	}
	host := fs.Arg(0)
	if *dry {
		hs, err := c.store.FederationHosts(ctx)
		if err != nil {
			return err
		}
		for _, h := range hs {
			if h.Host == host {
				return c.emit(map[string]any{"host": host, "dry_run": true, "deliveries": h.Waiting}, func(w *tabwriter.Writer) {
					fmt.Fprintf(w, "%s would change %d waiting deliveries of %s (dry run: nothing changed)\n", name, h.Waiting, host)
				})
			}
		}
		return fmt.Errorf("no federation host %q (see worker federation hosts)", host)
	}
	n, err := do(ctx, host, c.now())
	if err != nil {
		return err
	}
	return c.emit(map[string]any{"host": host, "deliveries": n}, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "%s: %d deliveries of %s\n", name, n, host)
	})
}

// truncate cuts s to at most n characters, marking the cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
