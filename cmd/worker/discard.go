package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"moviesdiary/internal/outbox"
)

// discard deletes dead-lettered events for good: `worker events discard ID... | --all-dead
// [--type T] [--older-than D] [--dry-run]`.
func (c *eventsCmd) discard(ctx context.Context, args []string) error {
	fs := c.flags("discard")
	allDead := fs.Bool("all-dead", false, "discard every dead-lettered event (narrow with --type, --older-than)")
	typ := fs.String("type", "", "with --all-dead: only this event type")
	olderThan := fs.String("older-than", "", "with --all-dead: only events created longer ago than this (720h, 30d)")
	dryRun := fs.Bool("dry-run", false, "show what would be discarded, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := deadSelection(fs, "discard", *allDead, *typ != "" || *olderThan != ""); err != nil {
		return err
	}
	f := outbox.DeadFilter{IDs: fs.Args(), EventType: *typ}
	if *olderThan != "" {
		age, err := parseAge(*olderThan)
		if err != nil {
			return fmt.Errorf("%w: --older-than: %v", errUsage, err)
		}
		f.OlderThan = age
	}
	if *dryRun {
		return c.dryRun(ctx, "discard", f)
	}
	n, err := c.store.DiscardEvents(ctx, f)
	if err != nil {
		return err
	}
	res := struct {
		Discarded int64 `json:"discarded"`
		Skipped   int   `json:"skipped_not_dead_lettered"`
	}{Discarded: n}
	if !*allDead {
		res.Skipped = fs.NArg() - int(n)
	}
	return c.emit(res, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "discarded %d dead-lettered event(s)", n)
		if res.Skipped > 0 {
			fmt.Fprintf(w, "; %d id(s) were not dead-lettered and were left alone", res.Skipped)
		}
		fmt.Fprintln(w)
	})
}

// deadSelection checks that a retry or discard names its rows one way: ids, or --all-dead
// (which the narrowing flags go with).
func deadSelection(fs *flag.FlagSet, cmd string, allDead, narrowed bool) error {
	switch {
	case allDead && fs.NArg() > 0:
		return fmt.Errorf("%w: give ids or --all-dead, not both", errUsage)
	case !allDead && fs.NArg() == 0:
		return fmt.Errorf("%w: %s needs event ids or --all-dead", errUsage, cmd)
	case narrowed && !allDead:
		return fmt.Errorf("%w: --type and --older-than go with --all-dead", errUsage)
	}
	return nil
}

// dryRun lists the dead-lettered rows a retry or discard would change, and changes nothing.
func (c *eventsCmd) dryRun(ctx context.Context, cmd string, f outbox.DeadFilter) error {
	rows, err := c.store.DeadLettered(ctx, f)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []outbox.EventRow{}
	}
	return c.emit(struct {
		DryRun bool              `json:"dry_run"`
		Would  string            `json:"would"`
		Events []outbox.EventRow `json:"events"`
	}{true, cmd, rows}, func(w *tabwriter.Writer) {
		fmt.Fprintf(w, "dry run: would %s %d dead-lettered event(s)\n", cmd, len(rows))
		if len(rows) > 0 {
			fmt.Fprintln(w, "ID\tEVENT ID\tTYPE\tATTEMPTS\tCREATED\tLAST ERROR")
		}
		for _, r := range rows {
			fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%s\n", r.ID, orDash(r.EventID), r.EventType, r.Attempts,
				r.CreatedAt.Format(time.RFC3339), firstLine(r.LastError))
		}
	})
}
