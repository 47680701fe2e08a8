package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

const moviesUsage = `usage: worker movies <command> [flags]

commands:
  list-unresolved [--limit N]       movies without an external id (typed in by hand), oldest first
  duplicates                        possible duplicates: a movie marked duplicate_of another, and movies
                                    with the same normalised title and year (one of them manual)
  merge FROM INTO [--dry-run]       merge movie FROM into movie INTO: reviews, watchlist entries and
                                    watch-queue items move, FROM is deleted and its id redirects to INTO
  resolve ID tmdb:N|ttN [--dry-run] give movie ID that external id; a film stored under it already is
                                    merged into instead

every command takes --json for machine-readable output. The database must exist and be migrated:
these commands never create or migrate one. Exit status: 0 done, 1 failed (an unknown movie, a
refused merge), 2 a mistake in the command line.`

// moviesCommand runs `worker movies …` against the configured database and returns the exit
// status.
func moviesCommand(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) int {
	group := moviesGroup(moviesCmd{})
	if code, done := group.help(args, stderr); done {
		return code
	}
	if code, ok := group.known(args, stderr); !ok {
		return code
	}
	store, err := openOperator(ctx, cfg)
	if err != nil {
		return group.exit(err, stderr)
	}
	defer store.Close()
	return runMovies(ctx, store, args, stdout, stderr)
}

// runMovies runs a movies command against store.
func runMovies(ctx context.Context, store movie.MergeStore, args []string, stdout, stderr io.Writer) int {
	return moviesGroup(moviesCmd{eventsCmd: eventsCmd{out: stdout}, curation: movie.NewCuration(store, nil)}).run(ctx, args, stderr)
}

// moviesGroup is `worker movies` with its commands run by cmd.
func moviesGroup(cmd moviesCmd) subcommand {
	return subcommand{name: "movies", usage: moviesUsage, commands: map[string]func(context.Context, []string) error{
		"list-unresolved": cmd.unresolved, "duplicates": cmd.duplicates, "merge": cmd.merge, "resolve": cmd.resolve,
	}}
}

type moviesCmd struct {
	eventsCmd
	curation *movie.Curation
}

// movieID parses a command-line movie id.
func movieID(what, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("%w: %s %q is not a movie id (a UUID)", errUsage, what, s)
	}
	return id, nil
}

func (c *moviesCmd) unresolved(ctx context.Context, args []string) error {
	fs := c.flags("list-unresolved")
	limit := fs.Int("limit", 100, "at most this many movies")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: list-unresolved takes no arguments", errUsage)
	}
	if *limit < 1 {
		return fmt.Errorf("%w: --limit must be at least 1", errUsage)
	}
	rows, err := c.curation.Unresolved(ctx, *limit)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []movie.Unresolved{}
	}
	return c.emit(rows, func(w *tabwriter.Writer) {
		fmt.Fprintln(w, "ID\tTITLE\tYEAR\tREVIEWS\tLAST ATTEMPT\tDUPLICATE OF")
		for _, r := range rows {
			attempt := "-"
			if r.AttemptedAt != nil {
				attempt = r.AttemptedAt.Format(time.RFC3339)
			}
			dup := "-"
			if r.DuplicateOf != nil {
				dup = r.DuplicateOf.String()
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%s\n", r.Movie.ID, r.Movie.Title, r.Movie.ReleaseYear, r.Reviews, attempt, dup)
		}
	})
}

// duplicateJSON is a possible duplicate as --json prints it.
type duplicateJSON struct {
	Reason string      `json:"reason"`
	Movies []entryJSON `json:"movies"`
}

type entryJSON struct {
	ID         uuid.UUID `json:"id"`
	Title      string    `json:"title"`
	Year       int       `json:"year"`
	ExternalID *string   `json:"external_id"`
}

func (c *moviesCmd) duplicates(ctx context.Context, args []string) error {
	fs := c.flags("duplicates")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: duplicates takes no arguments", errUsage)
	}
	dups, err := c.curation.Duplicates(ctx)
	if err != nil {
		return err
	}
	out := make([]duplicateJSON, len(dups))
	for i, d := range dups {
		out[i] = duplicateJSON{Reason: d.Reason}
		for _, m := range d.Movies {
			out[i].Movies = append(out[i].Movies, entryJSON{ID: m.ID, Title: m.Title, Year: m.Year, ExternalID: m.ExternalID})
		}
	}
	return c.emit(out, func(w *tabwriter.Writer) {
		fmt.Fprintln(w, "REASON\tID\tTITLE\tYEAR\tEXTERNAL ID")
		for _, d := range out {
			for i, m := range d.Movies {
				reason := d.Reason
				if i > 0 {
					reason = ""
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", reason, m.ID, m.Title, m.Year, orDash(deref(m.ExternalID)))
			}
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (c *moviesCmd) merge(ctx context.Context, args []string) error {
	fs := c.flags("merge")
	dry := fs.Bool("dry-run", false, "show what would move, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: merge takes two movie ids, FROM and INTO", errUsage)
	}
	from, err := movieID("FROM", fs.Arg(0))
	if err != nil {
		return err
	}
	into, err := movieID("INTO", fs.Arg(1))
	if err != nil {
		return err
	}
	res, err := c.curation.Merge(ctx, from, into, *dry)
	if err != nil {
		return err
	}
	return c.emit(res, func(w *tabwriter.Writer) { c.describeMerge(w, res) })
}

func (c *moviesCmd) describeMerge(w io.Writer, res movie.MergeResult) {
	switch {
	case res.AlreadyMerged:
		fmt.Fprintf(w, "movie %s was merged into %s already: nothing to do\n", res.From, res.Into)
		return
	case res.DryRun:
		fmt.Fprintf(w, "would merge movie %s into %s (dry run: nothing changed)\n", res.From, res.Into)
	default:
		fmt.Fprintf(w, "merged movie %s into %s\n", res.From, res.Into)
	}
	fmt.Fprintf(w, "reviews\t%d (%d announced again)\n", res.Reviews, res.Announced)
	fmt.Fprintf(w, "watchlist entries\t%d moved, %d kept once\n", res.Watchlist, res.WatchlistKept)
	fmt.Fprintf(w, "watch-queue items\t%d\n", res.WatchEvents)
	if res.ExternalID != "" {
		fmt.Fprintf(w, "external id\t%s\n", res.ExternalID)
	}
}

// resolveJSON is a resolution as --json prints it.
type resolveJSON struct {
	ID         uuid.UUID          `json:"id"`
	ExternalID string             `json:"external_id"`
	Resolved   bool               `json:"resolved"`
	MergedInto *uuid.UUID         `json:"merged_into,omitempty"`
	Merge      *movie.MergeResult `json:"merge,omitempty"`
	DryRun     bool               `json:"dry_run,omitempty"`
}

func (c *moviesCmd) resolve(ctx context.Context, args []string) error {
	fs := c.flags("resolve")
	dry := fs.Bool("dry-run", false, "show what would change, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: resolve takes a movie id and an external id (tmdb:N or tt…)", errUsage)
	}
	id, err := movieID("ID", fs.Arg(0))
	if err != nil {
		return err
	}
	ext := strings.TrimSpace(fs.Arg(1))
	if _, err := domain.NormalizeExternalID(ext); err != nil || ext == "" {
		return fmt.Errorf("%w: %q is not an external id (tmdb:N or tt…)", errUsage, ext)
	}
	res, err := c.curation.Resolve(ctx, id, ext, *dry)
	if err != nil {
		return err
	}
	out := resolveJSON{ID: id, ExternalID: ext, Resolved: res.Resolved, DryRun: *dry}
	if res.DuplicateOf != uuid.Nil {
		out.MergedInto, out.Merge = &res.DuplicateOf, &res.Merge
	}
	return c.emit(out, func(w *tabwriter.Writer) {
		switch {
		case res.DuplicateOf != uuid.Nil:
			fmt.Fprintf(w, "%s is stored already as movie %s\n", ext, res.DuplicateOf)
			c.describeMerge(w, res.Merge)
		case res.Resolved && *dry:
			fmt.Fprintf(w, "movie %s would take %s (dry run: nothing changed)\n", id, ext)
		case res.Resolved:
			fmt.Fprintf(w, "movie %s is %s now; enrichment is requested\n", id, ext)
		default:
			fmt.Fprintf(w, "movie %s is %s already: nothing to do\n", id, ext)
		}
	})
}
