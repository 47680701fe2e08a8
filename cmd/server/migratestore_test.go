package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"moviesdiary/cmd/server/internal/storecopy"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
)

// TestMigrateStoreMistakes: a missing or wrong --to, or an argument, is a usage error (exit 2)
// that shows the usage and never the password.
func TestMigrateStoreMistakes(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate-store"}, "migrate-store needs --to postgres://"},
		{[]string{"migrate-store", "--to", "mysql://md:hunter2@db/md"}, "--to mysql://md:xxxxx@db/md is not a postgres:// or postgresql:// URL"},
		{[]string{"migrate-store", "--to", "/var/lib/md.db"}, "is not a postgres://"},
		{[]string{"migrate-store", "--to", "postgres://md:hunter2@db/md", "now"}, "migrate-store takes no arguments"},
		{[]string{"migrate-store", "--from", "x"}, "flag provided but not defined: -from"},
	} {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "usage: server") {
			t.Errorf("server %v: exit %d, stderr %q; want exit 2 with %q and the usage", c.args, code, stderr, c.want)
		}
		if strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("server %v printed the password: %q %q", c.args, stdout, stderr)
		}
	}
}

// TestMigrateStoreRefusesMissingOrBusySource: no database, or one a server has open, fails
// (exit 1) before the destination is contacted (the URL names a port nothing listens on).
func TestMigrateStoreRefusesMissingOrBusySource(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	to := "postgres://md:hunter2@127.0.0.1:1/md"
	code, _, stderr := runCLI(t, "", "migrate-store", "--to", to)
	if code != 1 || !strings.Contains(stderr, "no database at "+filepath.Join(dir, "moviesdiary.db")) {
		t.Errorf("no database: exit %d, %q; want 1 naming the missing file", code, stderr)
	}
	s, err := sqlite.OpenMigrated(context.Background(), filepath.Join(dir, "moviesdiary.db"), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CheckWritable(context.Background()); err != nil { // a server that has used its connections
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "", "migrate-store", "--to", to, "--dry-run")
	if code != 1 || !strings.Contains(stderr, "stop the server and every worker first") {
		t.Errorf("database in use: exit %d, %q; want 1 asking to stop the server", code, stderr)
	}
	if strings.Contains(stderr, "hunter2") {
		t.Errorf("the password was printed: %q", stderr)
	}
}

// TestMigrateStoreNextSteps: the closing advice names the redacted URL, how to hand the
// generated JWT secret over, where the images are, and the SQLite file as the backup.
func TestMigrateStoreNextSteps(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := jwtSecret("", dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "images", "posters"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "moviesdiary.db")
	dest := redactURL("postgres://md:hunter2@db:5432/md?sslmode=require")
	for _, c := range []struct {
		name  string
		cfg   config.Config
		moved bool
		want  []string
	}{
		{"generated secret moved", config.Config{DataDir: dir}, true, []string{"now kept in the database", "leave JWT_SECRET unset"}},
		{"generated secret, local images", config.Config{DataDir: dir}, false, []string{
			"DATABASE_URL=postgres://md:xxxxx@db:5432/md?sslmode=require",
			`JWT_SECRET="$(cat ` + filepath.Join(dir, "jwt_secret") + `)"`,
			"Images are in " + filepath.Join(dir, "images"), "IMAGE_STORAGE=s3",
			"Keep " + path + " as the backup",
		}},
		{"configured secret, S3", config.Config{DataDir: dir, JWTSecret: "0123456789abcdef",
			ImageStore: config.ImageStore{ImageStorage: "s3", S3Bucket: "posters"}}, false, []string{
			"JWT_SECRET is set here", "S3 bucket posters: nothing to move",
		}},
		{"no secret, no images", config.Config{DataDir: t.TempDir()}, false, []string{"JWT_SECRET is unset", "There are no images in"}},
	} {
		var out bytes.Buffer
		printNextSteps(&out, c.cfg, path, dest, c.moved)
		for _, want := range c.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: the advice lacks %q:\n%s", c.name, want, out.String())
			}
		}
		if strings.Contains(out.String(), "hunter2") {
			t.Errorf("%s: the password was printed", c.name)
		}
	}
	if got := redactURL("postgresql:///md?host=/run/postgresql&password=hunter2"); strings.Contains(got, "hunter2") {
		t.Errorf("a password parameter is printed: %s", got)
	}
}

// TestMigrateStoreCounts prints the tables by name, numbers aligned, with the total.
func TestMigrateStoreCounts(t *testing.T) {
	var out bytes.Buffer
	printCounts(&out, storecopy.Report{Counts: []storecopy.Count{{Table: "users", Rows: 3}, {Table: "event_queue", Rows: 12045}}})
	want := "table         rows\n" +
		"event_queue  12045\n" +
		"users            3\n" +
		"total        12048\n"
	if out.String() != want {
		t.Errorf("counts:\n%s\nwant:\n%s", out.String(), want)
	}
}
