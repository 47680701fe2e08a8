package maintenance

import (
	"context"
	"errors"
	"testing"
	"time"
)

// jobFunc is a Job made of a function.
type jobFunc func(ctx context.Context) error

func (f jobFunc) RunOnce(ctx context.Context) error { return f(ctx) }

// TestRunnerRunsOnOneProcessAtATime: two runners share the lease; only its holder runs the
// jobs, the holder renews it each interval, and another takes over once it expired.
func TestRunnerRunsOnOneProcessAtATime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ran := map[string]int{}
	runner := func(name string) *Runner {
		return NewRunner(RunnerConfig{Lease: b.store, Holder: name, Interval: time.Hour, Logger: b.cfg.Logger, Now: b.cfg.Now},
			jobFunc(func(context.Context) error { ran[name]++; return nil }))
	}
	a, c := runner("a"), runner("c")
	if !a.RunOnce(ctx) {
		t.Fatal("first runner did not get the lease")
	}
	if c.RunOnce(ctx) {
		t.Fatal("second runner ran while the first holds the lease")
	}
	b.now = b.now.Add(time.Hour) // the holder's next tick renews
	if !a.RunOnce(ctx) || c.RunOnce(ctx) {
		t.Fatal("the holder did not keep the lease")
	}
	b.now = b.now.Add(2 * time.Hour) // the holder died: its lease ran out
	if !c.RunOnce(ctx) {
		t.Fatal("the lease was not taken over after it expired")
	}
	if a.RunOnce(ctx) {
		t.Fatal("the old holder ran after the take-over")
	}
	if ran["a"] != 2 || ran["c"] != 1 {
		t.Errorf("jobs ran %v, want a twice and c once", ran)
	}
}

// TestRunnerWithoutLeaseRunsEveryJobDespiteErrors: with no lease every pass runs; a failing job
// does not keep the next one from running.
func TestRunnerWithoutLeaseRunsEveryJobDespiteErrors(t *testing.T) {
	t.Parallel()
	var order []string
	r := NewRunner(RunnerConfig{Logger: testLogger(t)},
		jobFunc(func(context.Context) error { order = append(order, "failing"); return errors.New("boom") }),
		jobFunc(func(context.Context) error { order = append(order, "next"); return nil }))
	if !r.RunOnce(context.Background()) || !r.RunOnce(context.Background()) {
		t.Fatal("a runner without a lease did not run")
	}
	if len(order) != 4 || order[1] != "next" || order[3] != "next" {
		t.Errorf("ran %v, want both jobs on each pass", order)
	}
}

// TestRunnerRunReturnsWhenItsContextEnds: Run runs the jobs at once, then returns nil once its
// context ends (the process's lifecycle joins it).
func TestRunnerRunReturnsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	ran := make(chan struct{}, 1)
	r := NewRunner(RunnerConfig{Interval: time.Hour, Logger: testLogger(t)},
		jobFunc(func(context.Context) error { ran <- struct{}{}; return nil }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not run the jobs at start")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil after its context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
