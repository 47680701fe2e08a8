package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/user"
)

// adminCommand runs `server admin users …` against the configured database, which must exist
// and be migrated (it is never created or migrated here). Safe while the server runs: every
// change is one transaction, as the API's are.
func adminCommand(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) < 2 || args[0] != "users" {
		return fmt.Errorf("%w: admin users list | create EMAIL USERNAME [--admin] | approve USER | invite [--admin] | reset-password USER | set-role USER admin|standard | delete-user USER --yes", errUsage)
	}
	sub, rest := args[1], args[2:]
	fs := flag.NewFlagSet("admin users "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "machine-readable output (list)")
	fromStdin := fs.Bool("password-stdin", false, "reset-password, create: read the password from the first line of stdin")
	makeAdmin := fs.Bool("admin", false, "create: make an admin; invite: a link that makes one")
	yes := fs.Bool("yes", false, "delete-user: really delete")
	positional, err := parseInterleaved(fs, rest)
	if err != nil {
		return err
	}
	want := map[string]int{"list": 0, "reset-password": 1, "set-role": 2, "delete-user": 1, "create": 2, "approve": 1, "invite": 0}
	n, ok := want[sub]
	switch {
	case !ok:
		return fmt.Errorf("%w: unknown admin users command %q", errUsage, sub)
	case len(positional) != n:
		return fmt.Errorf("%w: admin users %s takes %d argument(s), got %d", errUsage, sub, n, len(positional))
	case sub == "set-role" && positional[1] != "admin" && positional[1] != "standard":
		return fmt.Errorf("%w: set-role takes admin or standard, not %q", errUsage, positional[1])
	case sub == "delete-user" && !*yes:
		return fmt.Errorf("%w: delete-user removes %s's account, reviews, watchlist and follows for good and tells their remote followers; add --yes", errUsage, positional[0])
	}

	store, err := openExisting(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	admin := user.NewAdmin(store, auth.DefaultHasher)

	switch sub {
	case "list":
		users, err := admin.List(ctx)
		if err != nil {
			return err
		}
		return printUsers(stdout, users, *asJSON)
	case "create":
		password, generated, err := newPassword(stdin, *fromStdin)
		if err != nil {
			return err
		}
		role := domain.RoleStandard
		if *makeAdmin {
			role = domain.RoleAdmin
		}
		u, err := admin.Create(ctx, positional[0], positional[1], password, role)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s as %s\n", name(u), u.Role)
		if generated {
			fmt.Fprintf(stdout, "password: %s\n", password)
		}
		return nil
	case "approve":
		u, err := admin.Approve(ctx, positional[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s may log in now\n", name(u))
		return nil
	case "invite":
		svc := auth.New(store, nil, auth.Config{})
		token, expires, err := svc.NewInvite(ctx, nil, *makeAdmin)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n(works once, until %s)\n", auth.InviteURL(cfg.BaseURL, token), expires.UTC().Format(time.RFC3339))
		return nil
	case "reset-password":
		password, generated, err := newPassword(stdin, *fromStdin)
		if err != nil {
			return err
		}
		u, err := admin.ResetPassword(ctx, positional[0], password)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "password of %s reset; their sessions are ended\n", name(u))
		if generated {
			fmt.Fprintf(stdout, "new password: %s\n", password)
		}
		return nil
	case "set-role":
		u, err := admin.SetRole(ctx, positional[0], domain.Role(positional[1]))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s is now %s\n", name(u), u.Role)
		return nil
	default: // delete-user
		u, err := admin.Delete(ctx, positional[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted %s; a worker sends the actor's Delete to their remote followers\n", name(u))
		return nil
	}
}

// newPassword reads a password from the first line of stdin, or generates one (generated true).
func newPassword(stdin io.Reader, fromStdin bool) (password string, generated bool, err error) {
	if !fromStdin {
		return rand.Text(), true, nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", false, fmt.Errorf("read the password from stdin: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), false, nil
}

func name(u domain.User) string { return fmt.Sprintf("%s (%s, %s)", u.Username, u.Email, u.ID) }

func printUsers(w io.Writer, users []domain.User, asJSON bool) error {
	if asJSON {
		type row struct {
			ID        string    `json:"id"`
			Username  string    `json:"username"`
			Email     string    `json:"email"`
			Role      string    `json:"role"`
			Pending   bool      `json:"pending"`
			CreatedAt time.Time `json:"created_at"`
		}
		out := make([]row, len(users))
		for i, u := range users {
			out[i] = row{u.ID.String(), u.Username, u.Email, string(u.Role), u.Pending, u.CreatedAt.UTC()}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSERNAME\tEMAIL\tROLE\tCREATED")
	for _, u := range users {
		role := string(u.Role)
		if u.Pending {
			role += " (awaiting approval)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.ID, u.Username, u.Email, role, u.CreatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// parseInterleaved parses flags wherever they stand among the arguments and returns the
// positional ones; a bad flag is a usage error.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
