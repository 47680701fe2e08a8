package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/outbox"
)

const eventsUsage = `usage: worker events <command> [flags]

commands:
  stats                                   counts by status and type, age of the oldest pending event
  list [--status S] [--type T] [--limit N] rows, newest first (status defaults to dead_lettered; "all" for every status)
  show ID                                 one event (event id or row id): payload, attempts, last error, ledger rows
  retry ID... | --all-dead [--type T]     dead-lettered events back to pending, attempts reset, same event id
  discard ID... | --all-dead [--type T] [--older-than D]
                                          delete dead-lettered events for good (poison events you gave up on)
  purge --done-older-than D [--yes]       delete done events older than D (e.g. 720h, 30d; 0s needs --yes)

every command takes --json for machine-readable output; retry, discard and purge take --dry-run
to show what they would change. The database must exist and be migrated: these commands never
create or migrate one.`

// errUsage marks a mistake in the command line (exit status 2).
var errUsage = errors.New("usage")

// eventsCommand runs `worker events …` against the configured database and returns the exit
// status.
func eventsCommand(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) int {
	group := subcommand{name: "events", usage: eventsUsage}
	if code, done := group.help(args, stderr); done {
		return code
	}
	store, err := openOperator(ctx, cfg)
	if err != nil {
		return group.exit(err, stderr)
	}
	defer store.Close()
	cmd := eventsCmd{store: store, out: stdout}
	group.commands = map[string]func(context.Context, []string) error{
		"stats": cmd.stats, "list": cmd.list, "show": cmd.show, "retry": cmd.retry, "discard": cmd.discard, "purge": cmd.purge,
	}
	return group.run(ctx, args, stderr)
}

type eventsCmd struct {
	store operatorStore
	out   io.Writer
	json  bool
}

// flags returns a flag set with --json bound to c.json.
func (c *eventsCmd) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&c.json, "json", false, "machine-readable output")
	return fs
}

// parse parses flags wherever they appear among the arguments (`show ID --json` works too).
func parse(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}

func (c *eventsCmd) emit(v any, human func(w *tabwriter.Writer)) error {
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	human(tw)
	return tw.Flush()
}

func (c *eventsCmd) stats(ctx context.Context, args []string) error {
	if err := parse(c.flags("stats"), args); err != nil {
		return err
	}
	st, err := c.store.Stats(ctx)
	if err != nil {
		return err
	}
	statuses := []string{"pending", "processing", "relayed", "done", "dead_lettered"}
	return c.emit(st, func(w *tabwriter.Writer) {
		for _, s := range statuses {
			fmt.Fprintf(w, "%s\t%d\n", s, st.ByStatus[s])
		}
		if st.OldestPendingAge != nil {
			fmt.Fprintf(w, "oldest pending\t%s\n", st.OldestPendingAge.Round(time.Second))
		} else {
			fmt.Fprintf(w, "oldest pending\t-\n")
		}
		types := make([]string, 0, len(st.ByType))
		for t := range st.ByType {
			types = append(types, t)
		}
		sort.Strings(types)
		fmt.Fprintf(w, "\nevent type\t%s\n", strings.Join(statuses, "\t"))
		for _, t := range types {
			fmt.Fprintf(w, "%s", t)
			for _, s := range statuses {
				fmt.Fprintf(w, "\t%d", st.ByType[t][s])
			}
			fmt.Fprintln(w)
		}
	})
}

func (c *eventsCmd) list(ctx context.Context, args []string) error {
	fs := c.flags("list")
	status := fs.String("status", "dead_lettered", "pending, processing, relayed, done, dead_lettered or all")
	typ := fs.String("type", "", "only this event type")
	limit := fs.Int("limit", 100, "at most this many rows")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch *status {
	case "all":
		*status = ""
	case "pending", "processing", "relayed", "done", "dead_lettered":
	default:
		return fmt.Errorf("%w: --status %q is not pending, processing, relayed, done, dead_lettered or all", errUsage, *status)
	}
	if *limit < 1 {
		return fmt.Errorf("%w: --limit must be at least 1", errUsage)
	}
	rows, err := c.store.ListEvents(ctx, *status, *typ, *limit)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []outbox.EventRow{}
	}
	return c.emit(rows, func(w *tabwriter.Writer) {
		fmt.Fprintln(w, "ID\tEVENT ID\tTYPE\tSTATUS\tATTEMPTS\tCREATED\tLAST ERROR")
		for _, r := range rows {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, orDash(r.EventID), r.EventType, r.Status, r.Attempts,
				r.CreatedAt.Format(time.RFC3339), firstLine(r.LastError))
		}
	})
}

func (c *eventsCmd) show(ctx context.Context, args []string) error {
	fs := c.flags("show")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: show takes one event id or row id", errUsage)
	}
	r, ledger, err := c.store.ShowEvent(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if ledger == nil {
		ledger = []outbox.LedgerEntry{}
	}
	out := struct {
		outbox.EventRow
		Payload json.RawMessage      `json:"payload"`
		Ledger  []outbox.LedgerEntry `json:"ledger"`
	}{EventRow: r, Ledger: ledger}
	if json.Valid([]byte(r.Payload)) {
		out.Payload = json.RawMessage(r.Payload)
	} else {
		out.Payload, _ = json.Marshal(r.Payload)
	}
	return c.emit(out, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "id\t%d\nevent id\t%s\ntype\t%s\nstatus\t%s\nattempts\t%d\ncreated\t%s\nnext attempt\t%s\n",
			r.ID, orDash(r.EventID), r.EventType, r.Status, r.Attempts, r.CreatedAt.Format(time.RFC3339Nano), r.NextAttemptAt.Format(time.RFC3339Nano))
		if r.ClaimedAt != nil {
			fmt.Fprintf(w, "claimed\t%s\n", r.ClaimedAt.Format(time.RFC3339Nano))
		}
		fmt.Fprintf(w, "last error\t%s\npayload\t%s\n", orDash(r.LastError), r.Payload)
		fmt.Fprintln(w, "\nHANDLER\tLEDGER STATUS\tSTARTED\tPROCESSED\tTAKE-OVERS")
		for _, l := range ledger {
			processed := "-"
			if l.ProcessedAt != nil {
				processed = l.ProcessedAt.Format(time.RFC3339Nano)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", l.Handler, l.Status, l.StartedAt.Format(time.RFC3339Nano), processed, l.Takeovers)
		}
	})
}

func (c *eventsCmd) retry(ctx context.Context, args []string) error {
	fs := c.flags("retry")
	allDead := fs.Bool("all-dead", false, "retry every dead-lettered event")
	typ := fs.String("type", "", "with --all-dead: only this event type")
	dryRun := fs.Bool("dry-run", false, "show what would be retried, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := deadSelection(fs, "retry", *allDead, *typ != ""); err != nil {
		return err
	}
	if *dryRun {
		return c.dryRun(ctx, "retry", outbox.DeadFilter{IDs: fs.Args(), EventType: *typ})
	}
	n, err := c.store.RetryEvents(ctx, fs.Args(), *typ)
	if err != nil {
		return err
	}
	res := struct {
		Retried int64 `json:"retried"`
		Skipped int   `json:"skipped_not_dead_lettered"`
	}{Retried: n}
	if !*allDead {
		res.Skipped = fs.NArg() - int(n)
	}
	return c.emit(res, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "retried %d event(s)", n)
		if res.Skipped > 0 {
			fmt.Fprintf(w, "; %d id(s) were not dead-lettered and were left alone", res.Skipped)
		}
		fmt.Fprintln(w)
	})
}

func (c *eventsCmd) purge(ctx context.Context, args []string) error {
	fs := c.flags("purge")
	olderThan := fs.String("done-older-than", "", "age, e.g. 720h or 30d")
	yes := fs.Bool("yes", false, "allow an age of 0s (every done event)")
	dryRun := fs.Bool("dry-run", false, "count what would be purged, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	age, err := parseAge(*olderThan)
	if err != nil {
		return fmt.Errorf("%w: --done-older-than: %v", errUsage, err)
	}
	if age == 0 && !*yes && !*dryRun {
		return fmt.Errorf("%w: --done-older-than 0s deletes every done event (the outbox's recent history); add --yes", errUsage)
	}
	if *dryRun {
		n, err := c.store.CountPurgeable(ctx, time.Now(), age)
		if err != nil {
			return err
		}
		return c.emit(struct {
			WouldPurge int64 `json:"would_purge"`
			DryRun     bool  `json:"dry_run"`
		}{n, true}, func(w *tabwriter.Writer) {
			fmt.Fprintf(w, "dry run: would purge %d done event(s) older than %s\n", n, *olderThan)
		})
	}
	n, err := c.store.PurgeDone(ctx, time.Now(), age)
	if err != nil {
		return err
	}
	return c.emit(struct {
		Purged int64 `json:"purged"`
	}{n}, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "purged %d done event(s) older than %s\n", n, *olderThan)
	})
}

// parseAge accepts Go durations and whole days ("30d").
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("required")
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 720h or 30d", s)
	}
	return d, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return orDash(s)
}
