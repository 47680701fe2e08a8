package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"moviesdiary/cmd/server/internal/storecopy"
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/config"
)

// migrateStoreCommand runs `server migrate-store --to URL [--dry-run]`: it copies the SQLite
// instance (DATABASE_URL or DATA_DIR's database, server and workers stopped) into the empty
// PostgreSQL database at URL in one transaction, prints each table's verified row count and
// says what to change to run on PostgreSQL. With --dry-run it copies and verifies, then rolls
// back. The SQLite file is only read.
func migrateStoreCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("migrate-store", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	to := flags.String("to", "", "the empty PostgreSQL database to move to")
	dryRun := flags.Bool("dry-run", false, "copy and verify, then roll back")
	positional, err := parseInterleaved(flags, args)
	switch {
	case err != nil:
		return err
	case len(positional) > 0:
		return fmt.Errorf("%w: migrate-store takes no arguments, only --to URL and --dry-run", errUsage)
	case *to == "":
		return fmt.Errorf("%w: migrate-store needs --to postgres://…, the empty PostgreSQL database to move to", errUsage)
	case !postgres.IsURL(*to):
		return fmt.Errorf("%w: --to %s is not a postgres:// or postgresql:// URL", errUsage, redactURL(*to))
	}
	if _, pg := cfg.PostgresURL(); pg {
		return fmt.Errorf("%w: DATABASE_URL names PostgreSQL already; migrate-store reads the SQLite instance: "+
			"point DATABASE_URL at its file (or unset it for DATA_DIR's)", errUsage)
	}
	path, err := cfg.DatabasePath()
	if err != nil {
		return err
	}
	report, err := storecopy.Copy(ctx, path, *to, storecopy.Options{DryRun: *dryRun})
	if err != nil {
		return err
	}
	printCounts(stdout, report)
	dest := redactURL(*to)
	if *dryRun {
		fmt.Fprintf(stdout, "\ndry run: every row of %s was copied into %s and verified, then rolled back; "+
			"the database is migrated and empty. Run again without --dry-run to move.\n", path, dest)
		return nil
	}
	fmt.Fprintf(stdout, "\nmoved %s (schema version %d) into %s; every table's rows verified.\n", path, report.SchemaVersion, dest)
	moved, err := moveSecret(ctx, cfg, *to)
	if err != nil {
		return err
	}
	printNextSteps(stdout, cfg, path, dest, moved)
	return nil
}

// moveSecret stores the SQLite instance's generated JWT secret (DATA_DIR/jwt_secret) in the
// PostgreSQL database, where servers on PostgreSQL keep theirs, so sessions survive the move.
// It reports whether it did: not when JWT_SECRET is set (that value goes on being used) or when
// there is no such file.
func moveSecret(ctx context.Context, cfg config.Config, to string) (bool, error) {
	if cfg.JWTSecret != "" {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, secretFile)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	secret, _, err := jwtSecret("", cfg.DataDir)
	if err != nil {
		return false, err
	}
	s, err := postgres.Open(ctx, to)
	if err != nil {
		return false, err
	}
	defer s.Close()
	stored, _, err := s.Secret(ctx, "jwt", func() (string, error) { return string(secret), nil })
	if err != nil {
		return false, fmt.Errorf("move the JWT secret: %w", err)
	}
	if stored != string(secret) {
		return false, errors.New("move the JWT secret: the database holds another one already")
	}
	return true, nil
}

// printCounts writes the copied tables by name with their rows, and the total.
func printCounts(w io.Writer, r storecopy.Report) {
	counts := slices.SortedFunc(slices.Values(r.Counts), func(a, b storecopy.Count) int { return strings.Compare(a.Table, b.Table) })
	var total int64
	nameWidth := len("total")
	for _, c := range counts {
		total += c.Rows
		nameWidth = max(nameWidth, len(c.Table))
	}
	rowsWidth := max(len("rows"), len(strconv.FormatInt(total, 10)))
	fmt.Fprintf(w, "%-*s  %*s\n", nameWidth, "table", rowsWidth, "rows")
	for _, c := range counts {
		fmt.Fprintf(w, "%-*s  %*d\n", nameWidth, c.Table, rowsWidth, c.Rows)
	}
	fmt.Fprintf(w, "%-*s  %*d\n", nameWidth, "total", rowsWidth, total)
}

// printNextSteps says what to change on every host once the data is in PostgreSQL: the
// database URL, the JWT secret, the images, and what the SQLite file is now.
func printNextSteps(w io.Writer, cfg config.Config, path, dest string, secretMoved bool) {
	fmt.Fprintf(w, "\nnext:\n")
	fmt.Fprintf(w, "1. Set DATABASE_URL=%s (with the real password) for every server and worker, then start them: "+
		"the workers deliver the outbox's pending events.\n", dest)
	secret := filepath.Join(cfg.DataDir, secretFile)
	_, err := os.Stat(secret)
	switch {
	case cfg.JWTSecret != "":
		fmt.Fprintf(w, "2. JWT_SECRET is set here: give every server the same value, or users are logged out.\n")
	case secretMoved:
		fmt.Fprintf(w, "2. The JWT secret of %s is now kept in the database, where every server on PostgreSQL "+
			"finds it: sessions go on working; leave JWT_SECRET unset.\n", secret)
	case err == nil:
		fmt.Fprintf(w, "2. The JWT secret is in %s: give every server its contents as JWT_SECRET, e.g. "+
			"JWT_SECRET=\"$(cat %s)\", or users are logged out.\n", secret, secret)
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(w, "2. There is no JWT secret in %s and JWT_SECRET is unset: the first server on PostgreSQL "+
			"generates one in the database for all of them (users log in again).\n", cfg.DataDir)
	default:
		fmt.Fprintf(w, "2. The JWT secret in %s could not be read (%v): give every server its contents as JWT_SECRET, "+
			"or users are logged out.\n", secret, err)
	}
	_, err = os.Stat(cfg.ImageDir())
	switch {
	case cfg.ImageStorage == "s3":
		fmt.Fprintf(w, "3. Images are in S3 bucket %s: nothing to move; give every server and worker the same "+
			"IMAGE_STORAGE=s3 and IMAGE_S3_* settings.\n", cfg.S3Bucket)
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(w, "3. There are no images in %s (IMAGE_STORAGE_PATH): nothing to move. With servers or workers on "+
			"several hosts, keep images in an S3 bucket (IMAGE_STORAGE=s3 and IMAGE_S3_*) everywhere.\n", cfg.ImageDir())
	default:
		fmt.Fprintf(w, "3. Images are in %s: copy that directory to IMAGE_STORAGE_PATH on every host that runs a "+
			"server or worker, or move them into an S3 bucket and set IMAGE_STORAGE=s3 (and IMAGE_S3_*) everywhere.\n",
			cfg.ImageDir())
	}
	fmt.Fprintf(w, "4. Keep %s as the backup of the instance as it was moved; start no server or worker on it "+
		"again (what they wrote would not reach PostgreSQL).\n", path)
}

// redactURL is u with its password (in the user info or a password parameter) hidden, for
// printing.
func redactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "the given URL"
	}
	if q := parsed.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		parsed.RawQuery = q.Encode()
	}
	return parsed.Redacted()
}
