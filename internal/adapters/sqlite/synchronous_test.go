package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestSynchronous: the writer connection runs the synchronous setting asked for (SQLite's
// PRAGMA synchronous answers 1 for NORMAL, 2 for FULL), NORMAL by default, and a bad value is
// refused at Open.
func TestSynchronous(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts []Option
		want int
	}{
		{nil, 1},
		{[]Option{WithSynchronous(SynchronousNormal)}, 1},
		{[]Option{WithSynchronous(SynchronousFull)}, 2},
	} {
		var w WriteFunc
		s := newStore(t, append(c.opts, WithMeasurementWriter(&w))...)
		var got int
		if err := w(context.Background(), func(tx *sqlx.Tx) error {
			return tx.Get(&got, `PRAGMA synchronous`)
		}); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%v: writer synchronous = %d, want %d", c.opts, got, c.want)
		}
		s.Close()
	}
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), WithSynchronous("off")); err == nil {
		t.Error("synchronous=off was accepted")
	}
	for in, want := range map[string]Synchronous{"normal": SynchronousNormal, "FULL": SynchronousFull} {
		if got, err := ParseSynchronous(in); err != nil || got != want {
			t.Errorf("ParseSynchronous(%q) = %q, %v", in, got, err)
		}
	}
}
