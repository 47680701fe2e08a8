package movie_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/usecase/movie"
)

// searchSpy is a provider whose search answers one candidate named after the query and counts
// the searches per query as sent.
type searchSpy struct {
	fakeMetadata
	mu      sync.Mutex
	queries map[movie.TitleQuery]int
}

func newSearchSpy(t *testing.T) *searchSpy {
	s := &searchSpy{queries: map[movie.TitleQuery]int{}}
	s.t = t
	s.SearchFunc = func(_ context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
		s.mu.Lock()
		s.queries[q]++
		s.mu.Unlock()
		return []movie.Candidate{{TMDbID: 1, Title: q.Title, Year: q.Year}}, nil
	}
	return s
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.at = c.at.Add(d)
	c.mu.Unlock()
}

func TestSearchCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	search := func(t *testing.T, c *movie.SearchCache, q movie.TitleQuery) []movie.Candidate {
		t.Helper()
		got, err := c.SearchMovies(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("a repeated search is asked once; case and spaces do not matter, year and language do", func(t *testing.T) {
		t.Parallel()
		spy := newSearchSpy(t)
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{})
		for _, title := range []string{"Arrival", "arrival", "  ARRIVAL ", "Arrival"} {
			search(t, c, movie.TitleQuery{Title: title})
		}
		search(t, c, movie.TitleQuery{Title: "Arrival", Year: 2016})
		search(t, c, movie.TitleQuery{Title: "Arrival", Language: "de"})
		// Normalize would make these one search; TMDb answers them differently.
		search(t, c, movie.TitleQuery{Title: "A Ghost Story"})
		search(t, c, movie.TitleQuery{Title: "Ghost Story"})
		if n := spy.calls.Load(); n != 5 {
			t.Errorf("%d searches reached the provider, want 5 (%v)", n, spy.queries)
		}
		if s := c.Stats(); s.Hits != 3 || s.Misses != 5 {
			t.Errorf("stats %+v, want 3 hits and 5 misses", s)
		}
	})

	t.Run("an answer expires after the TTL", func(t *testing.T) {
		t.Parallel()
		spy := newSearchSpy(t)
		clk := &clock{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{TTL: time.Minute, Now: clk.now})
		search(t, c, movie.TitleQuery{Title: "Heat"})
		clk.add(59 * time.Second)
		search(t, c, movie.TitleQuery{Title: "Heat"})
		clk.add(time.Second)
		search(t, c, movie.TitleQuery{Title: "Heat"})
		if n := spy.calls.Load(); n != 2 {
			t.Errorf("%d searches, want 2: one before and one after the minute", n)
		}
	})

	t.Run("the cache is bounded, least recently used first out", func(t *testing.T) {
		t.Parallel()
		spy := newSearchSpy(t)
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{Size: 3})
		for _, title := range []string{"a1", "a2", "a3", "a1", "a4"} { // a4 evicts a2, the least recently used
			search(t, c, movie.TitleQuery{Title: title})
		}
		if c.Len() != 3 {
			t.Errorf("%d entries, want 3", c.Len())
		}
		before := spy.calls.Load()
		search(t, c, movie.TitleQuery{Title: "a1"})
		search(t, c, movie.TitleQuery{Title: "a3"})
		search(t, c, movie.TitleQuery{Title: "a4"})
		if n := spy.calls.Load() - before; n != 0 {
			t.Errorf("%d searches for kept titles", n)
		}
		search(t, c, movie.TitleQuery{Title: "a2"})
		if n := spy.calls.Load() - before; n != 1 {
			t.Errorf("the evicted a2 was not asked again (%d searches)", n)
		}
	})

	t.Run("an empty answer is kept, an error is not", func(t *testing.T) {
		t.Parallel()
		var fail atomic.Bool
		spy := &fakeMetadata{t: t}
		spy.SearchFunc = func(context.Context, movie.TitleQuery) ([]movie.Candidate, error) {
			if fail.Load() {
				return nil, errors.New("tmdb: status 503")
			}
			return nil, nil
		}
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{})
		fail.Store(true)
		for range 2 {
			if _, err := c.SearchMovies(ctx, movie.TitleQuery{Title: "Lost"}); err == nil {
				t.Fatal("the provider's error was not returned")
			}
		}
		fail.Store(false)
		for range 3 {
			if got := search(t, c, movie.TitleQuery{Title: "Lost"}); len(got) != 0 {
				t.Fatalf("got %v, want no film", got)
			}
		}
		if n := spy.calls.Load(); n != 3 {
			t.Errorf("%d searches, want 2 failed and 1 kept", n)
		}
	})

	t.Run("callers cannot change each other's answer", func(t *testing.T) {
		t.Parallel()
		c := movie.NewSearchCache(newSearchSpy(t), movie.SearchCacheConfig{})
		first := search(t, c, movie.TitleQuery{Title: "Solaris"})
		first[0].Title = "changed"
		_ = append(first[:1], movie.Candidate{TMDbID: 2, Title: "appended"})
		if again := search(t, c, movie.TitleQuery{Title: "Solaris"}); len(again) != 1 || again[0].Title != "Solaris" {
			t.Errorf("the cached answer is now %+v", again)
		}
	})

	t.Run("concurrent identical searches are one call", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		var calls atomic.Int32
		spy := &fakeMetadata{t: t}
		spy.SearchFunc = func(ctx context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
			calls.Add(1)
			<-release
			return []movie.Candidate{{TMDbID: 7, Title: q.Title, Year: 1995}}, nil
		}
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{})
		waits := make(chan struct{}, 16)
		movie.OnSearchWait(c, func() { waits <- struct{}{} })
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				got, err := c.SearchMovies(ctx, movie.TitleQuery{Title: "Se7en"})
				if err == nil && (len(got) != 1 || got[0].TMDbID != 7) {
					err = fmt.Errorf("got %+v", got)
				}
				errs <- err
			})
		}
		// Every caller is in once one asks the provider and the others wait for it.
		for range n - 1 {
			receive(t, waits)
		}
		close(release)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if got := calls.Load(); got != 1 {
			t.Errorf("%d calls reached the provider, want 1", got)
		}
	})

	t.Run("a waiter whose leader failed asks for itself", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		started := make(chan struct{}, 1)
		spy := &fakeMetadata{t: t}
		spy.SearchFunc = func(ctx context.Context, q movie.TitleQuery) ([]movie.Candidate, error) {
			if calls.Add(1) == 1 {
				started <- struct{}{}
				<-ctx.Done() // the first caller's budget runs out
				return nil, ctx.Err()
			}
			return []movie.Candidate{{TMDbID: 9, Title: q.Title}}, nil
		}
		c := movie.NewSearchCache(spy, movie.SearchCacheConfig{})
		waits := make(chan struct{}, 1)
		movie.OnSearchWait(c, func() { waits <- struct{}{} })
		short, cancel := context.WithCancel(ctx)
		leader := make(chan error, 1)
		go func() {
			_, err := c.SearchMovies(short, movie.TitleQuery{Title: "Ran"})
			leader <- err
		}()
		receive(t, started)
		follower := make(chan []movie.Candidate, 1)
		go func() {
			got, _ := c.SearchMovies(ctx, movie.TitleQuery{Title: "Ran"})
			follower <- got
		}()
		receive(t, waits)
		cancel()
		if err := <-leader; !errors.Is(err, context.Canceled) {
			t.Errorf("leader: %v", err)
		}
		if got := <-follower; len(got) != 1 || got[0].TMDbID != 9 {
			t.Errorf("follower got %+v", got)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("%d calls, want the failed one and the follower's", n)
		}
	})
}

// receive waits for a signal, failing the test after a deadline.
func receive(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatal("no signal within 10 s")
	}
}
