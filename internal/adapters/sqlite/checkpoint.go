package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
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
// write lock, so writers keep committing while it runs.
//
// SQLite only starts the WAL over when a write transaction begins with every frame copied and no
// reader on it, which under steady writes never happens after a PASSIVE checkpoint: the WAL would
// grow without end. So once it is past restartFrames, the checkpointer follows with a RESTART
// checkpoint: it holds the write lock of every connection, in every process, while it copies the
// few frames committed since the PASSIVE one and checks that no reader is left on the WAL, so the
// next writer, whoever it is, starts the WAL over. (Running that second checkpoint on this
// process's writer connection instead was not enough: the server and the worker each have one,
// and under load the other process's commit came first every time, so the WAL grew by
// gigabytes.) The connection has no busy handler, whose sleeps of 1–25 ms would hold every writer
// back while it waited for a reader; restart tries a few times itself, a millisecond apart. When
// those tries all meet a reader (a busy server's reads overlap), the round falls back to that
// checkpoint on the writer's connection, which still restarts the WAL when one process writes;
// past forceFrames it waits for the readers instead (forceRestart).
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
		if !wait(ctx, checkpointDelay) {
			return nil
		}
		if db == nil {
			var err error
			if db, err = openCheckpointConn(c.path); err != nil {
				continue
			}
		}
		// A failure (another process checkpointing, a reader pinning the WAL) only delays the
		// copy to the next round; the WAL stays correct meanwhile.
		_, frames, err := checkpoint(ctx, db, "PASSIVE")
		if err == nil && frames >= restartFrames && !restart(ctx, db) {
			if frames >= forceFrames {
				forceRestart(ctx, db)
			} else {
				_, _, _ = checkpoint(ctx, c.writer, "PASSIVE")
			}
		}
	}
}

// openCheckpointConn opens the checkpointer's one connection, without a busy handler.
func openCheckpointConn(path string) (*sql.DB, error) {
	db, err := sql.Open(driverName, noBusyHandler(dsn(path, "deferred")))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// restartTries bounds the RESTART checkpoints of one round, restartGap apart. A try that finds a
// reader still on the WAL has already copied what was committed since the last one, holding every
// writer back meanwhile (two syncs), so the tries are few and leave the writers room between
// them; a round that does not get through leaves the WAL to the next.
const (
	restartTries = 4
	restartGap   = time.Millisecond
)

// restart runs RESTART checkpoints until one completes, so the next write starts the WAL over,
// and reports whether one did.
func restart(ctx context.Context, db *sql.DB) bool {
	for try := 1; ; try++ {
		busy, _, err := checkpoint(ctx, db, "RESTART")
		if err == nil && busy == 0 {
			return true
		}
		if err != nil || try == restartTries || !wait(ctx, restartGap) {
			return false
		}
	}
}

// wait waits d and reports true, or false as soon as ctx ends.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// forceFrames is the WAL length (40 MiB of pages) past which a round that could not start the
// WAL over waits for the readers to leave it, for at most forceWait, holding every writer back
// meanwhile: when reads overlap without pause (a busy server), no reader-free moment ever comes
// and the WAL would otherwise grow without end.
const (
	forceFrames = 10 * restartFrames
	forceWait   = 100 * time.Millisecond
)

// forceRestart runs one RESTART checkpoint with SQLite's busy handler on for forceWait: it takes
// the write lock, copies what is left and waits for the readers still on the WAL to finish (new
// readers do not need the WAL then).
func forceRestart(ctx context.Context, db *sql.DB) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", forceWait.Milliseconds())); err != nil {
		return
	}
	var busy, frames, copied int
	_ = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &frames, &copied)
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = 0"); err != nil {
		// A connection left waiting would hold every writer back at the next round: drop it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// checkpoint runs a checkpoint in mode (PASSIVE or RESTART) and returns whether it could not
// finish (another connection held the lock it needed) and the WAL's length in frames.
func checkpoint(ctx context.Context, db *sql.DB, mode string) (busy, frames int, err error) {
	var copied int
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
	return busy, frames, err
}
