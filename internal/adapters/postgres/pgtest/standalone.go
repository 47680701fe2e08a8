package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Down stops a Server's postmaster but keeps its data directory and socket directory, so Up
// starts it again where it was: cmd/chaos takes PostgreSQL down under running servers and
// workers. mode is pg_ctl's: "fast" (a clean shutdown) or "immediate" (a crash, recovered from
// the WAL at the next start).
func (s *Server) Down(ctx context.Context, mode string) error {
	if mode != "fast" && mode != "immediate" {
		return fmt.Errorf("pgtest: stop mode %q is not fast or immediate", mode)
	}
	if out, err := s.c.run(ctx, s.c.pgCtl, "stop", "-D", s.c.data, "-m", mode, "-w", "-t", "60"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// Up starts a Server that Down stopped, on the same data directory and socket, and waits until
// it accepts connections.
func (s *Server) Up(ctx context.Context) error {
	log := s.Log()
	if out, err := s.c.run(ctx, s.c.pgCtl, "start", "-w", "-t", "60", "-D", s.c.data, "-l", log); err != nil {
		tail, _ := os.ReadFile(log)
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, tail)
	}
	return nil
}

// Log is the path of the server's log file, which Stop removes with the rest of the cluster.
func (s *Server) Log() string { return filepath.Join(s.c.dir, "server.log") }
