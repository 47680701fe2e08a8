package httpapi

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"sync"
)

// cachedPatterns are the hot public reads: the documents remote servers and feed readers poll
// (actors, outboxes, WebFinger, NodeInfo, the instance's and users' feeds), the same for every
// anonymous caller.
var cachedPatterns = map[string]bool{
	"/feed.rss": true, "/feed.atom": true, "/users/{id}/feed.rss": true, "/users/{id}/feed.atom": true,
	"/users/{id}": true, "/users/{id}/outbox": true, "/.well-known/webfinger": true, "/nodeinfo/2.0": true,
}

// Bounds of the response cache: entries, and the largest body kept.
const (
	cacheMaxEntries = 1024
	cacheMaxBody    = 256 << 10
)

// responseCache keeps the 200 responses of cachedPatterns for as long as the database has not
// changed: every entry belongs to the data version read before it was rendered, and the first
// request that sees another version empties the cache. The write path thus invalidates it by
// committing, whichever process commits, and a cached response never shows less than a fresh
// one rendered at the time of its check would have (it was rendered after that version).
type responseCache struct {
	version func(ctx context.Context) (int64, error)
	mu      sync.Mutex
	at      int64
	entries map[string]*cachedResponse
}

type cachedResponse struct {
	header http.Header
	body   []byte
}

func newResponseCache(version func(ctx context.Context) (int64, error)) *responseCache {
	if version == nil {
		return nil
	}
	return &responseCache{version: version, entries: map[string]*cachedResponse{}}
}

// wrap serves rt's anonymous GETs from the cache when rt is a cached pattern.
func (c *responseCache) wrap(rt route, h http.Handler) http.Handler {
	if c == nil || rt.method != http.MethodGet || rt.access != accessPublic || !cachedPatterns[rt.pattern] {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A signed or authenticated fetch may be answered per caller: never from the cache.
		if r.Header.Get("Authorization") != "" || r.Header.Get("Signature") != "" {
			h.ServeHTTP(w, r)
			return
		}
		v, err := c.version(r.Context())
		if err != nil {
			h.ServeHTTP(w, r)
			return
		}
		// The representation varies with Accept (an actor is JSON for servers, a redirect for
		// browsers).
		key := r.URL.RequestURI() + "\x00" + r.Header.Get("Accept")
		if hit := c.get(v, key); hit != nil {
			maps.Copy(w.Header(), hit.header)
			w.Header().Set("X-Cache", "hit")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(hit.body)
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusOK && !rec.overflow {
			c.put(v, key, &cachedResponse{header: rec.header, body: rec.body.Bytes()})
		}
	})
}

func (c *responseCache) get(v int64, key string) *cachedResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.at {
		return nil
	}
	return c.entries[key]
}

func (c *responseCache) put(v int64, key string, e *cachedResponse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v < c.at {
		return // rendered before a commit another request already saw
	}
	if v != c.at || len(c.entries) >= cacheMaxEntries {
		clear(c.entries)
		c.at = v
	}
	c.entries[key] = e
}

// recorder passes a response through while keeping a copy of its header and body (up to
// cacheMaxBody).
type recorder struct {
	http.ResponseWriter
	status   int
	wrote    bool
	header   http.Header
	body     bytes.Buffer
	overflow bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.wrote, r.status, r.header = true, status, r.ResponseWriter.Header().Clone()
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	if r.body.Len()+len(p) > cacheMaxBody {
		r.overflow = true
	} else if !r.overflow {
		r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}
