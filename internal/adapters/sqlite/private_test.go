package sqlite_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
)

// TestDatabaseIsPrivate: the database holds password hashes and keys, so the file, its WAL and
// its shared-memory file are created 0600 and a directory made for them 0700, whatever the umask.
func TestDatabaseIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "moviesdiary.db")
	s, err := sqlite.OpenMigrated(context.Background(), path, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateUser(context.Background(), domain.User{ID: uuid.New(), Username: "alice", Email: "alice@example.org",
		PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}
