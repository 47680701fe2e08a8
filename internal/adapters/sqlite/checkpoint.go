package sqlite

import (
	"context"
	"database/sql"
	"time"
)

const (
	// checkpointDelay is how long the checkpointer lets commits gather before copying them into
	// the database file: one checkpoint per delay at most while writes keep coming.
	checkpointDelay = 100 * time.Millisecond
	// restartFrames is the WAL length (4 MiB of pages) past which the checkpointer also makes the
	// WAL start over.
	restartFrames = 1000
)

// checkpointer copies the WAL into the database file from a connection of its own, so no
// commit waits for it. The writer connection never checkpoints (wal_autocheckpoint = 0): with
// SQLite's default, the commit that crosses 1,000 WAL pages copies them all before it returns,
// stalling every write queued behind it for tens of milliseconds. A PASSIVE checkpoint takes no
// write lock, so the writer keeps committing while it runs.
//
// SQLite only starts the WAL over when a write transaction begins with every frame copied, which
// under steady writes never happens after a checkpoint from another connection: the WAL would
// grow without end. So once it is past restartFrames, the checkpointer runs a second, short
// checkpoint on the writer connection between two transactions; it copies only what was committed
// since the first, and the writer's next transaction rewinds the WAL.
//
// The checkpointer has the one lifecycle of every long-lived part: run returns only when its
// context ends, and Store.Close cancels it and waits for it.
type checkpointer struct {
	path   string
	writer *sql.DB
	kick   chan struct{}
}

func newCheckpointer(path string, writer *sql.DB) *checkpointer {
	return &checkpointer{path: path, writer: writer, kick: make(chan struct{}, 1)}
}

// committed tells the checkpointer that the WAL grew.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// run checkpoints checkpointDelay after commits until ctx ends, then closes its connection and
// returns. A failed checkpoint only delays the copy, so run has no error of its own to return.
func (c *checkpointer) run(ctx context.Context) error {
	var db *sql.DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	for {
		select {
		case <-c.kick:
		case <-ctx.Done():
			return nil
		}
		t := time.NewTimer(checkpointDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		}
		if db == nil {
			var err error
			if db, err = sql.Open(driverName, dsn(c.path, "deferred")); err != nil {
				continue
			}
			db.SetMaxOpenConns(1)
		}
		// A failure (another process checkpointing, a reader pinning the WAL) only delays the
		// copy to the next round; the WAL stays correct meanwhile.
		frames, err := checkpoint(ctx, db)
		if err == nil && frames >= restartFrames {
			_, _ = checkpoint(ctx, c.writer)
		}
	}
}

// checkpoint runs a PASSIVE checkpoint and returns the WAL's length in frames.
func checkpoint(ctx context.Context, db *sql.DB) (int, error) {
	var busy, frames, copied int
	err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err
}
