// Package storetest is the repository test suite both stores run (one suite, two
// implementations): each area's Run function takes a function that opens a fresh, migrated
// store, and the sqlite and postgres packages each call it from a small test, so every case runs
// on both. A case that needs a write's events to fail flips the Faults it gave the opener, whose
// store's enqueue (its WithEnqueue option) consults it.
package storetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"moviesdiary/internal/domain"
)

// ErrInjected is what a store's enqueue returns while its Faults are on.
var ErrInjected = errors.New("storetest: injected enqueue failure")

// Faults switches a store's event inserts between working, failing before they write anything
// (Set), and failing after the rows are written (SetAfter): the latter stands for the rest of
// the write's transaction failing, whose events must then roll back with it.
type Faults struct{ on, after atomic.Bool }

// Err is ErrInjected while the faults are on, else nil: what the store's enqueue calls first.
func (f *Faults) Err() error {
	if f.on.Load() {
		return ErrInjected
	}
	return nil
}

// ErrAfter is ErrInjected while the after-faults are on, else nil: what the store's enqueue
// returns once it has inserted the rows.
func (f *Faults) ErrAfter() error {
	if f.after.Load() {
		return ErrInjected
	}
	return nil
}

// Set turns the faults on or off.
func (f *Faults) Set(on bool) { f.on.Store(on) }

// SetAfter turns the after-faults on or off.
func (f *Faults) SetAfter(on bool) { f.after.Store(on) }

// Outbox is how the suite sees the events a write committed.
type Outbox interface {
	// QueueCounts is the number of outbox rows in each status.
	QueueCounts(ctx context.Context) (map[string]int, error)
}

// events is the number of outbox rows, of any status.
func events(t *testing.T, s Outbox) int {
	t.Helper()
	counts, err := s.QueueCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// wantKind fails the test unless err is a domain error of kind k with message msg ("" for any).
func wantKind(t *testing.T, err error, k domain.Kind, msg string) {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) || e.Kind != k || msg != "" && e.Message != msg {
		t.Fatalf("error %v (kind %v), want kind %v %q", err, domain.KindOf(err), k, msg)
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
