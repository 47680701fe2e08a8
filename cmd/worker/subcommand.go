package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// subcommand is one of the operators' command groups (`worker events`, `worker federation`,
// `worker movies`): its name, its usage text and its commands, each given the arguments after
// its name. They share the help and the exit statuses: 0 done, 1 failed, 2 a mistake in the
// command line (with the usage).
type subcommand struct {
	name     string
	usage    string
	commands map[string]func(ctx context.Context, args []string) error
}

// help answers a command line that names no command, or asks for help: done is false when
// there is a command to run.
func (c subcommand) help(args []string, stderr io.Writer) (code int, done bool) {
	if len(args) > 0 && args[0] != "-h" && args[0] != "--help" && args[0] != "help" {
		return 0, false
	}
	fmt.Fprintln(stderr, c.usage)
	if len(args) == 0 {
		return 2, true
	}
	return 0, true
}

// known reports whether args names one of the commands (checked before a database is opened).
func (c subcommand) known(args []string, stderr io.Writer) (int, bool) {
	if _, ok := c.commands[args[0]]; ok {
		return 0, true
	}
	return c.exit(fmt.Errorf("%w: unknown command %q", errUsage, args[0]), stderr), false
}

// run runs the command args names and returns the exit status.
func (c subcommand) run(ctx context.Context, args []string, stderr io.Writer) int {
	f, ok := c.commands[args[0]]
	if !ok {
		return c.exit(fmt.Errorf("%w: unknown command %q", errUsage, args[0]), stderr)
	}
	return c.exit(f(ctx, args[1:]), stderr)
}

// exit reports err as the command group's and returns its exit status.
func (c subcommand) exit(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stderr, "worker %s: %v\n\n%s\n", c.name, err, c.usage)
		return 2
	default:
		fmt.Fprintf(stderr, "worker %s: %v\n", c.name, err)
		return 1
	}
}
