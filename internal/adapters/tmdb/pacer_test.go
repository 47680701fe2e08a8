package tmdb_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
)

// arrivals records when each request reached the fake.
type arrivals struct {
	mu sync.Mutex
	at []time.Time
}

func (a *arrivals) add() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, time.Now())
	return len(a.at)
}

func (a *arrivals) gap(i int) time.Duration { return a.since(i-1, i) }

// since is how long after request j request i arrived (indexes from 0).
func (a *arrivals) since(j, i int) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at[i].Sub(a.at[j])
}

// TestRateLimitIsWaitedOut: a 429 is not an error for the caller: the client waits its
// Retry-After and asks again, so the worker's enrichment succeeds instead of spending attempts
// towards a dead letter.
func TestRateLimitIsWaitedOut(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	var seen arrivals
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		if seen.add() <= 2 {
			status(429, "1")(w, r)
			return true
		}
		return false
	})
	m, err := fake.Client().Movie(context.Background(), 78)
	if err != nil || m.Title != "Blade Runner" {
		t.Fatalf("Movie(78) after two 429s = %+v, %v", m.Title, err)
	}
	if n := fake.Count("/3/movie/78"); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	for i := 1; i <= 2; i++ {
		if g := seen.gap(i); g < time.Second {
			t.Errorf("retry %d came %s after the 429, before its Retry-After of 1s", i, g)
		}
	}
}

// TestRateLimitPastTheBudgetIsTransient: when waiting would exceed MaxRateWait the 429 is
// returned, as a transient error (the queue retries it later; it is not dead-lettered).
func TestRateLimitPastTheBudgetIsTransient(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool { status(429, "5")(w, r); return true })
	c := tmdb.NewClient(tmdb.Config{APIURL: fake.APIURL(), APIKey: tmdbtest.Key, HTTP: fake.Server.Client(), MaxRateWait: 2 * time.Second})
	_, err := c.Movie(context.Background(), 78)
	if err == nil || domain.IsPermanent(err) {
		t.Fatalf("err = %v, want a transient 429", err)
	}
	if n := fake.Count("/3/movie/78"); n != 1 {
		t.Errorf("requests = %d, want 1: a wait past the budget is not attempted", n)
	}
}

// TestConcurrentCallsPauseTogether: four calls at once at 5 a second: the first meets a 429, and
// the others, queued in the bucket meanwhile, wait its pause out too; then the rate spaces them.
func TestConcurrentCallsPauseTogether(t *testing.T) {
	t.Parallel()
	fake := tmdbtest.New(t)
	var seen arrivals
	fake.SetOverride(func(w http.ResponseWriter, r *http.Request) bool {
		if seen.add() == 1 {
			status(429, "1")(w, r)
			return true
		}
		return false
	})
	c := tmdb.NewClient(tmdb.Config{APIURL: fake.APIURL(), APIKey: tmdbtest.Key, HTTP: fake.Server.Client(),
		RequestsPerSecond: 5, RateBurst: 1})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Movie(context.Background(), 78)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if g := seen.gap(1); g < time.Second {
		t.Errorf("the next call came %s after the 429, inside the pause", g)
	}
	// The rate releases the k-th call after the pause no sooner than (k-1)×200 ms after it ends.
	// Arrival times are compared with the 429's, not with each other: a release can only reach
	// the fake later than it happened (a loaded machine delays one call and so shortens the
	// next gap), never earlier, so this holds however busy the machine is.
	for i := 2; i < 5; i++ {
		want := time.Second + time.Duration(i-1)*200*time.Millisecond
		if g := seen.since(0, i); g < want-5*time.Millisecond {
			t.Errorf("call %d came %s after the 429, want at least %s: faster than 5 a second", i+1, g, want)
		}
	}
}
