package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

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
