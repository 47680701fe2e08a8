package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// newUnflushedLegacyDB writes the original's database the way a copy taken beside a running
// movies-diary can leave it: in WAL mode with every transaction committed to the -wal file and
// none checkpointed (autocheckpoint off, and the writing connection still open while the files
// are copied, so closing it cannot checkpoint them first). It copies the database and its -wal
// (with shm, its -shm too) into a directory of their own and returns the copy's path.
func newUnflushedLegacyDB(t *testing.T, shm bool) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "movies.db")
	db, err := sql.Open("sqlite3", "file:"+src+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(legacySchema + legacyRows); err != nil {
		t.Fatalf("legacy fixture: %v", err)
	}
	path := filepath.Join(t.TempDir(), "movies.db")
	suffixes := []string{"", "-wal"}
	if shm {
		suffixes = append(suffixes, "-shm")
	}
	for _, s := range suffixes {
		copyFile(t, src+s, path+s)
	}
	return path
}

// TestAdoptAnUnflushedWAL: an original whose committed transactions are all still in its -wal
// file (the main file alone has none of its tables) is adopted with every row, and its backup
// holds them all, whether its -shm was copied too or not.
func TestAdoptAnUnflushedWAL(t *testing.T) {
	t.Parallel()
	for _, shm := range []bool{false, true} {
		t.Run(map[bool]string{false: "WithoutShm", true: "WithShm"}[shm], func(t *testing.T) {
			t.Parallel()
			path := newUnflushedLegacyDB(t, shm)
			ctx := context.Background()

			// The test can fail: the main file alone holds none of the original's tables.
			alone := filepath.Join(t.TempDir(), "alone.db")
			copyFile(t, path, alone)
			adb, err := openRaw(alone)
			if err != nil {
				t.Fatal(err)
			}
			wantRows(t, adb, `SELECT count(*) FROM sqlite_master`, []string{"0"})
			adb.Close()
			orig, err := openRaw(path)
			if err != nil {
				t.Fatal(err)
			}
			before, err := tableCounts(ctx, orig)
			orig.Close()
			if err != nil {
				t.Fatal(err)
			}
			if before["reviews"] != 3 || before["event_queue"] != 4 {
				t.Fatalf("the copy with its WAL reads %v, want the fixture's rows", before)
			}

			if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
				t.Fatalf("adopt an unflushed original: %v", err)
			}
			checkAdopted(t, path)
			b := backups(t, path)
			if len(b) != 1 {
				t.Fatalf("backups %v, want one", b)
			}
			if _, err := os.Stat(b[0] + "-wal"); err == nil {
				t.Errorf("the backup %s has a -wal file: it is not one file", b[0])
			}
			bdb, err := openRaw(b[0])
			if err != nil {
				t.Fatal(err)
			}
			defer bdb.Close()
			after, err := tableCounts(ctx, bdb)
			if err != nil {
				t.Fatal(err)
			}
			if !mapsEqual(before, after) {
				t.Errorf("backup counts %v, original %v", after, before)
			}
		})
	}
}
