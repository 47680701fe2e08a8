package main

import (
	"context"
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

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// durableConf is what moviesdiary's pgtest.StartDurable (internal/adapters/postgres/pgtest,
// which this module cannot import) appends to postgresql.conf, line for line: PostgreSQL's own
// durable defaults (fsync, synchronous_commit, full_page_writes on, shared_buffers 128MB), on a
// unix socket only. cmd/bench's pg-* rows run on such a cluster; River's on this one, started the
// same way (same binaries, initdb flags and settings) by this binary.
const durableConf = `
listen_addresses = ''
log_min_messages = warning
log_min_error_statement = panic
`

// poolConns is each store's pgxpool size: moviesdiary's PostgreSQL store's MaxConnsDefault.
const poolConns = 20

// cluster is a running throwaway PostgreSQL server in its own temporary directory.
type cluster struct {
	dir, data, pgCtl string
	cred             *syscall.Credential // nil: run as this process's user
	dog              *exec.Cmd           // stops the cluster if this process dies before stop
}

// startCluster runs initdb into a new temporary directory and starts PostgreSQL there on a unix
// socket with durableConf, as pgtest.StartDurable does.
func startCluster(ctx context.Context) (c *cluster, err error) {
	initdb, pgCtl, err := findBinaries()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	// A short path: a unix socket's path must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "river-pg-")
	if err != nil {
		return nil, err
	}
	c = &cluster{dir: dir, data: filepath.Join(dir, "data"), pgCtl: pgCtl, cred: cred}
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
	if out, err := c.run(ctx, initdb, "-D", c.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
		"--lc-collate=C", "--lc-ctype=C.UTF-8", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(durableConf + fmt.Sprintf("unix_socket_directories = '%s'\n", dir))
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("postgresql.conf: %w", err)
	}
	log := filepath.Join(dir, "server.log")
	if out, err := c.run(ctx, pgCtl, "start", "-w", "-t", "60", "-D", c.data, "-l", log); err != nil {
		tail, _ := os.ReadFile(log)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, tail)
	}
	return c, nil
}

// findBinaries finds initdb and pg_ctl on PATH, else in the newest of Debian's
// /usr/lib/postgresql/<version>/bin, as pgtest does.
func findBinaries() (initdb, pgCtl string, err error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if c := filepath.Join(filepath.Dir(p), "pg_ctl"); isExec(c) {
			return p, c, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) int { v, _ := strconv.Atoi(filepath.Base(filepath.Dir(d))); return v }
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if i, c := filepath.Join(d, "initdb"), filepath.Join(d, "pg_ctl"); isExec(i) && isExec(c) {
			return i, c, nil
		}
	}
	return "", "", errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)")
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
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("running as root and there is neither a postgres nor a nobody user to run PostgreSQL as")
}

// run runs a server binary as the cluster's user, killed with this process.
func (c *cluster) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGTZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
	return cmd.CombinedOutput()
}

// watchdog starts a shell that stops the cluster and removes its directory once this process is
// gone, so a killed run leaves no server behind.
func (c *cluster) watchdog() {
	script := fmt.Sprintf(`while [ -d /proc/%d ]; do sleep 1; done
		[ -f %q/postmaster.pid ] && %q stop -D %q -m immediate
		for i in 1 2 3 4 5; do rm -rf %q && break; sleep 1; done`,
		os.Getpid(), c.data, c.pgCtl, c.data, c.dir)
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	if err := cmd.Start(); err == nil {
		c.dog = cmd
	}
}

// stop stops the server at once and removes its directory.
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
	// The stopped postmaster may still be removing its socket files.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err := os.RemoveAll(c.dir)
		if err == nil || time.Now().After(deadline) {
			return errors.Join(append(errs, err)...)
		}
	}
}

// url is the connection URL of database name on the cluster's socket.
func (c *cluster) url(name string) string {
	return "postgres://postgres@/" + name + "?host=" + c.dir + "&sslmode=disable"
}

// settings describes the server and the settings that decide a commit's cost, as it reports them.
func (c *cluster) settings(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		return "", err
	}
	parts := []string{"PostgreSQL " + strings.Fields(version)[0]}
	for _, s := range []string{"fsync", "synchronous_commit", "full_page_writes", "wal_sync_method", "shared_buffers"} {
		var v string
		if err := conn.QueryRow(ctx, "SHOW "+s).Scan(&v); err != nil {
			return "", err
		}
		parts = append(parts, s+"="+v)
	}
	return strings.Join(parts, ", "), nil
}

// postgresBackend is River on riverpgxv5 on c, a new database per store reached by a pgxpool
// of poolConns connections; commit→work is offered by eight producers, as cmd/bench's
// pg-latency (a durable commit waits for its WAL flush, so two could not offer 1,000/s).
func postgresBackend(c *cluster) backend[pgx.Tx] {
	return backend[pgx.Tx]{producers: 8, open: func(ctx context.Context, name string) (*store[pgx.Tx], error) {
		admin, err := pgx.Connect(ctx, c.url("postgres"))
		if err != nil {
			return nil, err
		}
		_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0")
		admin.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("create database %s: %w", name, err)
		}
		cfg, err := pgxpool.ParseConfig(c.url(name))
		if err != nil {
			return nil, err
		}
		cfg.MaxConns = poolConns
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		driver := riverpgxv5.New(pool)
		m, err := rivermigrate.New(driver, nil)
		if err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("migrate %s: %w", name, err)
		}
		return &store[pgx.Tx]{
			driver:   driver,
			begin:    func(ctx context.Context) (pgx.Tx, error) { return pool.Begin(ctx) },
			commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
			rollback: func(ctx context.Context, tx pgx.Tx) { tx.Rollback(context.WithoutCancel(ctx)) },
			createReviews: func(ctx context.Context) error {
				_, err := pool.Exec(ctx, `CREATE TABLE review (
					id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
					user_id bigint NOT NULL,
					movie_id bigint NOT NULL,
					rating int NOT NULL,
					body text NOT NULL)`)
				return err
			},
			insertReview: func(ctx context.Context, tx pgx.Tx, user, movie, rating int, body string) error {
				_, err := tx.Exec(ctx, `INSERT INTO review (user_id, movie_id, rating, body) VALUES ($1, $2, $3, $4)`,
					user, movie, rating, body)
				return err
			},
			close: pool.Close,
		}, nil
	}}
}
