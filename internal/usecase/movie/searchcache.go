package movie

import (
	"cmp"
	"container/list"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of SearchCacheConfig.
const (
	// SearchCacheSizeDefault bounds the cached searches: a first page is at most 20 small
	// candidates (~2 KiB), so the cache holds ~8 MiB at most, and covers the distinct titles of
	// a diary of tens of thousands of rows.
	SearchCacheSizeDefault = 4096
	// SearchCacheTTLDefault is how long an answer is reused: long enough for an import, a
	// backfill or a burst of webhooks, short enough that a film added to the provider since
	// (a new release, a fixed title) is found within the hour.
	SearchCacheTTLDefault = time.Hour
)

// SearchCacheConfig configures a SearchCache; zero fields take the defaults above.
type SearchCacheConfig struct {
	// Size bounds how many searches are kept; the least recently used goes first.
	Size int
	// TTL is how long an answer is reused after the provider gave it.
	TTL time.Duration
	// Now is the clock (tests move it); nil for time.Now.
	Now func() time.Time
}

// SearchCache is a Metadata that answers a title search the provider answered within the TTL
// from memory: an import names the same films many times (rewatches, a title shared by
// remakes of other years), and each resolution of a row starts with the same yearless search.
// Searches are keyed by the query as sent, in lower case with spaces collapsed (TMDb ignores
// both), its year and language: not by Normalize, which drops a leading article and so would
// serve "A Ghost Story"'s answer to "Ghost Story", a search TMDb answers differently. Empty
// answers are kept too (a film the provider lacks is asked about once); errors are not. Concurrent
// identical searches are one call: the others wait for its answer (and, if it fails, try
// themselves, with their own deadline). LookupMovie and FindIMDb go to the provider unchanged.
// It is safe for concurrent use.
type SearchCache struct {
	Metadata // the provider; its LookupMovie and FindIMDb are used as they are
	size     int
	ttl      time.Duration
	now      func() time.Time

	mu       sync.Mutex
	entries  map[string]*list.Element // of *searchEntry, most recently used at the front
	order    *list.List
	inflight map[string]*searchCall
	stats    SearchCacheStats
	onWait   func() // onWait, set by tests, is called when a caller starts waiting on another's call
}

// SearchCacheStats count what a SearchCache did.
type SearchCacheStats struct {
	Hits   int64 // Hits were answered from memory (or by a concurrent identical call).
	Misses int64 // Misses went to the provider.
}

type searchEntry struct {
	key   string
	cands []Candidate
	at    time.Time
}

type searchCall struct {
	done  chan struct{}
	cands []Candidate
	err   error
}

// NewSearchCache wraps md, which must not be nil.
func NewSearchCache(md Metadata, cfg SearchCacheConfig) *SearchCache {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &SearchCache{Metadata: md, size: cmp.Or(max(cfg.Size, 0), SearchCacheSizeDefault),
		ttl: cmp.Or(max(cfg.TTL, 0), SearchCacheTTLDefault), now: now,
		entries: map[string]*list.Element{}, order: list.New(), inflight: map[string]*searchCall{}}
}

// SearchMovies answers from memory when the same search was answered within the TTL, else asks
// the provider and keeps its answer. Every caller gets a slice of its own.
func (c *SearchCache) SearchMovies(ctx context.Context, q TitleQuery) ([]Candidate, error) {
	key := searchKey(q)
	for {
		c.mu.Lock()
		if cands, ok := c.get(key); ok {
			c.stats.Hits++
			c.mu.Unlock()
			return slices.Clone(cands), nil
		}
		if call, ok := c.inflight[key]; ok {
			c.mu.Unlock()
			if c.onWait != nil {
				c.onWait()
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-call.done:
			}
			if call.err == nil {
				c.mu.Lock()
				c.stats.Hits++
				c.mu.Unlock()
				return slices.Clone(call.cands), nil
			}
			continue // the call failed (perhaps only its deadline): try with ours
		}
		call := &searchCall{done: make(chan struct{})}
		c.inflight[key] = call
		c.stats.Misses++
		c.mu.Unlock()

		call.cands, call.err = c.Metadata.SearchMovies(ctx, q)
		c.mu.Lock()
		delete(c.inflight, key)
		if call.err == nil {
			c.put(key, slices.Clone(call.cands))
		}
		c.mu.Unlock()
		close(call.done)
		if call.err != nil {
			return nil, call.err
		}
		return slices.Clone(call.cands), nil
	}
}

// Stats returns the counts so far.
func (c *SearchCache) Stats() SearchCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Len is how many searches are kept (expired ones included until they are met or evicted).
func (c *SearchCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// get returns a live entry and marks it recently used; an expired one is dropped. c.mu is held.
func (c *SearchCache) get(key string) ([]Candidate, bool) {
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*searchEntry)
	if c.now().Sub(e.at) >= c.ttl {
		c.order.Remove(el)
		delete(c.entries, key)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.cands, true
}

// put keeps an answer, evicting the least recently used beyond the size. c.mu is held.
func (c *SearchCache) put(key string, cands []Candidate) {
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushFront(&searchEntry{key: key, cands: cands, at: c.now()})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*searchEntry).key)
	}
}

// searchKey is what makes two searches the same: the title in lower case with its spaces
// collapsed, the year and the language.
func searchKey(q TitleQuery) string {
	return strings.Join(strings.Fields(strings.ToLower(q.Title)), " ") + "\x00" + strconv.Itoa(q.Year) + "\x00" +
		strings.ToLower(q.Language)
}
