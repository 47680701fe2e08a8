package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"moviesdiary/internal/buildinfo"
	"moviesdiary/internal/config"
)

const usage = `usage: server [command]

Without a command the server serves the API (configured by the environment; see the README).

commands:
  healthcheck                  exit 0 when this host's server answers GET /ready with 200 (for container healthchecks)
  admin users list             every local account: id, username, e-mail, role, created
  admin users reset-password USER   set a new password (read from stdin, or generated and printed); ends the user's sessions
  admin users set-role USER admin|standard
  admin users delete-user USER [--yes]  delete the account; its followers are sent the actor's Delete
  backup DIR                   a consistent copy of the database, the images and the JWT secret, while the server runs
  restore DIR                  put a backup in place (server and workers stopped)
  migrate-store --to URL [--dry-run]  copy this SQLite instance into an empty PostgreSQL database (server and workers stopped)
  config                       print the effective settings, secrets masked (also --print-config); touches nothing
  version                      print the version (also --version)
  help                         this text (also -h, --help)

USER is a username, an e-mail address or a user id.`

// errUsage marks a mistake in the command line: exit status 2, and nothing was changed.
var errUsage = errors.New("usage")

// command is what the arguments ask for; serve is the default.
type command struct {
	name string
	args []string
}

// parseArgs reads the command from the arguments without touching the environment or the disk,
// so a mistake (an unknown flag or command) stops the process before anything happens.
func parseArgs(args []string) (command, error) {
	if len(args) == 0 {
		return command{name: "serve"}, nil
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return command{name: "help"}, nil
	case "-version", "--version", "version":
		if len(args) > 1 {
			return command{}, fmt.Errorf("%w: version takes no arguments", errUsage)
		}
		return command{name: "version"}, nil
	case "config", "--print-config", "-print-config":
		if len(args) > 1 {
			return command{}, fmt.Errorf("%w: config takes no arguments; it prints what the environment configures", errUsage)
		}
		return command{name: "config"}, nil
	case "serve":
		if len(args) > 1 {
			return command{}, fmt.Errorf("%w: serve takes no arguments; configure the server through the environment", errUsage)
		}
		return command{name: "serve"}, nil
	case "healthcheck", "admin", "backup", "restore", "migrate-store":
		return command{name: args[0], args: args[1:]}, nil
	}
	return command{}, fmt.Errorf("%w: unknown command or flag %q", errUsage, args[0])
}

// cli runs the command the arguments ask for and returns the exit status: 0 done, 1 failed, 2 a
// usage or configuration mistake. Serving runs until ctx ends.
func cli(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n\n%s\n", err, usage)
		return 2
	}
	switch cmd.name {
	case "help":
		fmt.Fprintln(stdout, usage)
		return 0
	case "version":
		fmt.Fprintln(stdout, buildinfo.String("server"))
		return 0
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(stderr, "server: config:", err)
		return 2
	}
	switch cmd.name {
	case "config":
		// The suspects go to stderr, apart from the settings, so the output stays NAME=value lines.
		config.WarnSuspects(ctx, cfg.NewLogger(stderr), os.Environ())
		if err := cfg.Print(stdout); err != nil {
			fmt.Fprintln(stderr, "server config:", err)
			return 1
		}
		return 0
	case "serve":
		log := cfg.NewLogger(stderr).With("service", "server")
		config.WarnSuspects(ctx, log, os.Environ())
		// The process's one clock: every part that reads the time gets it from here.
		if err := run(ctx, cfg, log, time.Now, nil); err != nil {
			log.Error("server stopped with an error", "error", err)
			return 1
		}
		return 0
	case "healthcheck":
		err = healthcheck(ctx, cfg, cmd.args, stdout)
	case "admin":
		err = adminCommand(ctx, cfg, cmd.args, stdin, stdout)
	case "backup":
		err = backupCommand(ctx, cfg, cmd.args, stdout)
	case "restore":
		err = restoreCommand(ctx, cfg, cmd.args, stdout)
	case "migrate-store":
		err = migrateStoreCommand(ctx, cfg, cmd.args, stdout)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "server %s: %v\n\n%s\n", cmd.name, err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "server %s: %v\n", cmd.name, err)
		return 1
	}
}
