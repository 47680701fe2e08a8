package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// errNotInstalled marks a machine without PostgreSQL's server binaries.
var errNotInstalled = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin")

// tuning is appended to the throwaway cluster's postgresql.conf: nothing it holds must survive a
// crash, so durability is off (no fsync, no synchronous commit, no full-page writes), memory is
// small (several clusters run at once on a CI machine), and it listens on its unix socket only.
const tuning = `
listen_addresses = ''
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 32MB
max_connections = 200
autovacuum = off
log_min_messages = warning
log_min_error_statement = panic
`

// cluster is a running throwaway server: its directory (data, socket, log), the binaries that
// run it and the user they run as.
type cluster struct {
	dir    string // holds data/, the socket and the log; removed at stop
	data   string
	pgCtl  string
	cred   *syscall.Credential // nil: run as this process's user
	dog    *exec.Cmd           // stops the cluster if this process dies without stop
	strat  string              // " STRATEGY = FILE_COPY" where the server has it
	socket string
}

// findBinaries finds initdb and pg_ctl: on PATH first, else the newest of Debian's
// /usr/lib/postgresql/<version>/bin.
func findBinaries() (initdb, pgCtl string, err error) {
	return findIn(exec.LookPath, "/usr/lib/postgresql")
}

// findIn is findBinaries over lookPath and a Debian-style root of versioned bin directories.
func findIn(lookPath func(string) (string, error), root string) (initdb, pgCtl string, err error) {
	if p, err := lookPath("initdb"); err == nil {
		if c := filepath.Join(filepath.Dir(p), "pg_ctl"); isExec(c) {
			return p, c, nil
		}
		if c, err := lookPath("pg_ctl"); err == nil {
			return p, c, nil
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "bin"))
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if i, c := filepath.Join(d, "initdb"), filepath.Join(d, "pg_ctl"); isExec(i) && isExec(c) {
			return i, c, nil
		}
	}
	return "", "", errNotInstalled
}

// version is the major version in a /usr/lib/postgresql/<version>/bin path (0 if none).
func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// serverUser is who runs initdb and postgres, which refuse to run as root: this process's user,
// or when that is root, the postgres system user if there is one, else nobody.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root and there is neither a postgres nor a nobody user to run PostgreSQL as")
}

// start runs initdb into a new temporary directory and starts the server on a unix socket there,
// with conf (tuning, or durableConf) appended to its postgresql.conf.
func start(ctx context.Context, conf string) (c *cluster, err error) {
	initdb, pgCtl, err := findBinaries()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	// A short path: a unix socket's path must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c = &cluster{dir: dir, data: filepath.Join(dir, "data"), pgCtl: pgCtl, cred: cred, socket: dir}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("hand the cluster directory to uid %d: %w", cred.Uid, err)
		}
	}
	c.watchdog()
	// C collation (byte order, as SQLite's BINARY), but UTF-8 character classes, so text search
	// and lower() know non-ASCII letters.
	if out, err := c.run(ctx, initdb, "-D", c.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
		"--lc-collate=C", "--lc-ctype=C.UTF-8", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	conf += fmt.Sprintf("unix_socket_directories = '%s'\n", dir)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(conf)
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("tune postgresql.conf: %w", err)
	}
	if out, err := c.run(ctx, pgCtl, "start", "-w", "-t", "60", "-D", c.data, "-l", filepath.Join(dir, "server.log")); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	var v int
	if err := c.admin(ctx, func(db *sql.DB) error {
		return db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v)
	}); err != nil {
		return nil, fmt.Errorf("connect to the throwaway cluster: %w", err)
	}
	if v >= 150000 {
		// Copying a small template's files beats writing all of them to the WAL (15's default).
		c.strat = " STRATEGY = FILE_COPY"
	}
	return c, nil
}

// run runs a server binary as the cluster's user and returns its output.
func (c *cluster) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGTZ=UTC")
	// Killed with this process, so a killed test leaves no initdb writing into a directory its
	// watchdog is removing.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
	return cmd.CombinedOutput()
}

// watchdog starts a shell that stops the cluster and removes its directory once this process is
// gone: a test binary killed by its timeout or a signal never reaches stop, and its server would
// otherwise run on. It starts before initdb, so no moment leaves a directory behind. Its output
// goes nowhere, so go test does not wait for it.
func (c *cluster) watchdog() {
	// The postmaster may still be removing its socket after pg_ctl returns, so the removal is
	// tried again while the directory is not yet empty.
	script := fmt.Sprintf(`while [ -d /proc/%d ]; do sleep 1; done
		[ -f %q/postmaster.pid ] && %q stop -D %q -m immediate
		for i in 1 2 3 4 5; do rm -rf %q && break; sleep 1; done`,
		os.Getpid(), c.data, c.pgCtl, c.data, c.dir)
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	attr := &syscall.SysProcAttr{Setpgid: true}
	if c.cred != nil {
		attr.Credential = c.cred
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err == nil {
		c.dog = cmd
	}
}

// admin runs fn on the postgres database (CREATE and DROP DATABASE) over a pool of its own,
// closed before it returns: nothing of the cluster's stays open between calls, so the leak checks
// of the tests that use it see only their own goroutines.
func (c *cluster) admin(ctx context.Context, fn func(db *sql.DB) error) error {
	db, err := sql.Open("pgx", c.url("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// exec runs one statement with admin.
func (c *cluster) exec(ctx context.Context, query string, args ...any) error {
	return c.admin(ctx, func(db *sql.DB) error {
		_, err := db.ExecContext(ctx, query, args...)
		return err
	})
}

// stop stops the server at once (nothing in it is kept) and removes its directory.
func (c *cluster) stop() error {
	var errs []error
	if c.dog != nil {
		_ = c.dog.Process.Kill()
		_ = c.dog.Wait()
	}
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := c.run(ctx, c.pgCtl, "stop", "-D", c.data, "-m", "immediate", "-w")
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("pg_ctl stop: %w\n%s", err, out))
		}
	}
	errs = append(errs, removeAll(c.dir))
	return errors.Join(errs...)
}

// removeAll removes dir, trying again for a while: the stopped postmaster may still be removing
// its socket files, so the first try can find the directory not yet empty.
func removeAll(dir string) error {
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err = os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// url is the connection URL of database name on the cluster's socket.
func (c *cluster) url(name string) string {
	return "postgres://postgres@/" + name + "?host=" + c.socket + "&sslmode=disable"
}

// quoteIdent quotes a database name for SQL.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
