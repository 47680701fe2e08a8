package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

func openGroupStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "group.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.write.Exec(`CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteGroupedIsolatesRequestsOfAGroup: concurrent writes share commits, yet each one that fails
// (by error, panic or a cancelled context) rolls back alone and the others commit.
func TestWriteGroupedIsolatesRequestsOfAGroup(t *testing.T) {
	verifyNoLeak(t)
	s := openGroupStore(t)
	const n = 200
	errs := make([]error, n)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			if i%10 == 9 {
				ctx = cancelled
			}
			errs[i] = s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
				if _, err := tx.Exec(`INSERT INTO kv (k, v) VALUES (?, 'x')`, i); err != nil {
					return err
				}
				switch i % 10 {
				case 3:
					return fmt.Errorf("request %d fails after its insert", i)
				case 7:
					panic("request panics after its insert")
				}
				return nil
			})
		})
	}
	wg.Wait()
	var want int
	for i, err := range errs {
		switch i % 10 {
		case 3, 7, 9:
			if err == nil {
				t.Errorf("request %d: no error", i)
			}
		default:
			want++
			if err != nil {
				t.Errorf("request %d: %v", i, err)
			}
		}
	}
	var got int
	if err := s.read.QueryRow(`SELECT count(*) FROM kv WHERE k % 10 NOT IN (3, 7, 9)`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	var leaked int
	if err := s.read.QueryRow(`SELECT count(*) FROM kv WHERE k % 10 IN (3, 7, 9)`).Scan(&leaked); err != nil {
		t.Fatal(err)
	}
	if got != want || leaked != 0 {
		t.Errorf("committed %d of %d good requests, and %d rows of failed ones", got, want, leaked)
	}
}

// TestWriteTxAfterClose: writeGrouped after Close is refused, not hung.
func TestWriteTxAfterClose(t *testing.T) {
	verifyNoLeak(t)
	s := openGroupStore(t)
	if err := s.writeGrouped(context.Background(), func(*sqlx.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.writeGrouped(context.Background(), func(*sqlx.Tx) error { return nil }); !errors.Is(err, errStoreClosed) {
		t.Errorf("writeGrouped after Close = %v, want errStoreClosed", err)
	}
}

// TestWriteGroupedSurvivesACancelMidStatement: a request whose context is cancelled while its
// statement runs inside a group fails alone; the other requests of its group commit. Unshielded,
// go-sqlite3 interrupts the statement, SQLite rolls back the whole transaction, and every other
// request fails with "no such savepoint".
func TestWriteGroupedSurvivesACancelMidStatement(t *testing.T) {
	verifyNoLeak(t)
	s := openGroupStore(t)
	const others = 20
	// A first request holds the writer, so the slow one and the others queue up behind it and
	// are committed together in the next group.
	entered, gate := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = s.writeGrouped(context.Background(), func(*sqlx.Tx) error {
			close(entered)
			<-gate
			return nil
		})
	})
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var slowErr error
	var cancelledDuring bool
	wg.Go(func() {
		slowErr = s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
			before := ctx.Err()
			timer := time.AfterFunc(20*time.Millisecond, cancel) // the client hangs up mid-statement
			defer timer.Stop()
			// An INSERT: SQLite rolls back the whole transaction when it interrupts a write.
			_, err := tx.ExecContext(ctx, `INSERT INTO kv (k, v)
				WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT -1 - x, 'slow' FROM c`)
			cancelledDuring = before == nil && ctx.Err() != nil
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (-1, 'slow')`)
			return err
		})
	})
	errs := make([]error, others)
	for i := range others {
		wg.Go(func() {
			errs[i] = s.writeGrouped(context.Background(), func(tx *sqlx.Tx) error {
				_, err := tx.Exec(`INSERT INTO kv (k, v) VALUES (?, 'x')`, i)
				return err
			})
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.group.queued.Load() != others+2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", s.group.queued.Load(), others+2)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
	close(gate)
	wg.Wait()
	if !cancelledDuring {
		t.Fatal("the slow statement ended before its context was cancelled; the test did not cancel mid-statement")
	}
	if !errors.Is(slowErr, context.Canceled) {
		t.Errorf("cancelled request: %v, want context.Canceled", slowErr)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d of the group failed with its neighbour's cancellation: %v", i, err)
		}
	}
	var n, slow int
	if err := s.read.QueryRow(`SELECT count(*) FROM kv WHERE k >= 0`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := s.read.QueryRow(`SELECT count(*) FROM kv WHERE k < 0`).Scan(&slow); err != nil {
		t.Fatal(err)
	}
	if n != others || slow != 0 {
		t.Errorf("committed %d of %d neighbours and %d rows of the cancelled request", n, others, slow)
	}
}
