package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// client is one registered user driving the API, its requests spread round-robin over the
// servers.
type client struct {
	bases  []string     // the servers' URLs
	next   atomic.Int64 // the server of the next request
	site   string       // BASE_URL, the instance's public URL, the same on every server
	http   *http.Client
	token  string
	userID string
	handle string

	mu       sync.Mutex
	reviews  []string // ids of this user's live reviews
	logged   []string // ids of every review whose creation the server acknowledged (201)
	watching []string // movie ids on this user's watchlist
}

// loadStats counts the requests the driver made.
type loadStats struct {
	requests  atomic.Int64
	serverErr atomic.Int64
	lastErr   atomic.Value // string

	mu     sync.Mutex
	failed []failure // the 5xx answers, to be told apart by the outage windows
}

// failure is one 5xx answer: when its request was sent and answered, and what it said.
type failure struct {
	sent, answered time.Time
	what           string
}

// failures is the 5xx answers so far.
func (st *loadStats) failures() []failure {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]failure(nil), st.failed...)
}

func (c *client) do(ctx context.Context, st *loadStats, method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	base := c.bases[int(c.next.Add(1)-1)%len(c.bases)]
	req, err := http.NewRequestWithContext(ctx, method, base+path, r)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	sent := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if st != nil {
		st.requests.Add(1)
		if resp.StatusCode >= 500 {
			what := fmt.Sprintf("%s %s: %d %s", method, path, resp.StatusCode, data)
			st.serverErr.Add(1)
			st.lastErr.Store(what)
			st.mu.Lock()
			st.failed = append(st.failed, failure{sent: sent, answered: time.Now(), what: what})
			st.mu.Unlock()
		}
	}
	if out != nil && resp.StatusCode < 300 && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// register creates user n on one server and logs it in on the next, whose token every server
// accepts.
func register(ctx context.Context, bases []string, site string, n int) (*client, error) {
	c := &client{bases: bases, site: site, http: &http.Client{Timeout: 30 * time.Second}, handle: fmt.Sprintf("chaos%d", n)}
	email, password := c.handle+"@example.test", "correct horse battery staple"
	if code, err := c.do(ctx, nil, "POST", "/api/v1/auth/register", map[string]string{
		"email": email, "username": c.handle, "password": password}, nil); err != nil || code != 201 {
		return nil, fmt.Errorf("register %s: %d %v", c.handle, code, err)
	}
	var login struct {
		Token  string `json:"token"`
		UserID string `json:"user_id"`
	}
	if code, err := c.do(ctx, nil, "POST", "/api/v1/auth/login", map[string]string{"email": email, "password": password}, &login); err != nil || code != 200 {
		return nil, fmt.Errorf("login %s: %d %v", c.handle, code, err)
	}
	c.token, c.userID = login.Token, login.UserID
	return c, nil
}

// drive sends a random mix of writes until ctx ends.
func drive(ctx context.Context, c *client, others []*client, rnd *rand.Rand, st *loadStats) {
	for ctx.Err() == nil {
		switch p := rnd.IntN(100); {
		case p < 40:
			c.logReview(ctx, rnd, st)
		case p < 55:
			c.editReview(ctx, rnd, st)
		case p < 63:
			c.deleteReview(ctx, rnd, st)
		case p < 78:
			c.addWatchlist(ctx, rnd, st)
		case p < 84:
			c.removeWatchlist(ctx, rnd, st)
		case p < 92:
			o := others[rnd.IntN(len(others))]
			c.do(ctx, st, "POST", "/api/v1/social/follow", map[string]string{"handle": o.handle}, nil)
			o.do(ctx, st, "POST", "/api/v1/social/followers/accept", map[string]string{"actor_url": c.actorURL()}, nil)
		default:
			o := others[rnd.IntN(len(others))]
			c.do(ctx, st, "POST", "/api/v1/social/unfollow", map[string]string{"actor_url": o.actorURL()}, nil)
		}
	}
}

func (c *client) actorURL() string { return c.site + "/users/" + c.userID }

func (c *client) logReview(ctx context.Context, rnd *rand.Rand, st *loadStats) {
	var out struct {
		Review struct {
			ID string `json:"id"`
		} `json:"review"`
		Movie struct {
			ID string `json:"id"`
		} `json:"movie"`
	}
	body := map[string]any{
		"manual_title":        fmt.Sprintf("Chaos Movie %d", rnd.IntN(60)),
		"manual_release_year": 1950 + rnd.IntN(70),
		"rating":              1 + rnd.IntN(5),
		"watched_at":          time.Now().Add(-time.Duration(rnd.IntN(1000)) * time.Hour).Format("2006-01-02"),
		"comment":             "seen under chaos",
	}
	if code, err := c.do(ctx, st, "POST", "/api/v1/reviews", body, &out); err == nil && code == 201 && out.Review.ID != "" {
		c.mu.Lock()
		c.reviews = append(c.reviews, out.Review.ID)
		c.logged = append(c.logged, out.Review.ID)
		c.mu.Unlock()
	}
}

func (c *client) pickReview(rnd *rand.Rand, remove bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.reviews) == 0 {
		return ""
	}
	i := rnd.IntN(len(c.reviews))
	id := c.reviews[i]
	if remove {
		c.reviews = append(c.reviews[:i], c.reviews[i+1:]...)
	}
	return id
}

func (c *client) editReview(ctx context.Context, rnd *rand.Rand, st *loadStats) {
	if id := c.pickReview(rnd, false); id != "" {
		c.do(ctx, st, "PATCH", "/api/v1/reviews/"+id, map[string]any{"rating": 1 + rnd.IntN(5), "comment": nil}, nil)
	}
}

func (c *client) deleteReview(ctx context.Context, rnd *rand.Rand, st *loadStats) {
	if id := c.pickReview(rnd, true); id != "" {
		c.do(ctx, st, "DELETE", "/api/v1/reviews/"+id, nil, nil)
	}
}

func (c *client) addWatchlist(ctx context.Context, rnd *rand.Rand, st *loadStats) {
	var out struct {
		MovieID string `json:"movie_id"`
		Movie   struct {
			ID string `json:"id"`
		} `json:"movie"`
	}
	body := map[string]any{"manual_title": fmt.Sprintf("Chaos Watch %d", rnd.IntN(40)), "manual_release_year": 2000 + rnd.IntN(20)}
	if code, err := c.do(ctx, st, "POST", "/api/v1/watchlist", body, &out); err == nil && code < 300 {
		id := out.MovieID
		if id == "" {
			id = out.Movie.ID
		}
		if id != "" {
			c.mu.Lock()
			c.watching = append(c.watching, id)
			c.mu.Unlock()
		}
	}
}

func (c *client) removeWatchlist(ctx context.Context, rnd *rand.Rand, st *loadStats) {
	c.mu.Lock()
	if len(c.watching) == 0 {
		c.mu.Unlock()
		return
	}
	i := rnd.IntN(len(c.watching))
	id := c.watching[i]
	c.watching = append(c.watching[:i], c.watching[i+1:]...)
	c.mu.Unlock()
	c.do(ctx, st, "DELETE", "/api/v1/watchlist/"+id, nil, nil)
}
