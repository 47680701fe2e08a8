package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app"
	"moviesdiary/internal/usecase/auth"
)

// The mixed load's shape: how many users and movies the reviews spread over (the same at every
// size, so a bigger database means longer diaries and movie pages, as it would in life) and the
// routes in the proportions of issue 19 (40 % diary, 15 % movie page, 10 % feed, 5 % search,
// 30 % writes).
const (
	mixedUsers  = 50
	mixedMovies = 500
)

var mixedRoutes = []struct {
	name   string
	weight int
}{{"diary", 40}, {"movie", 15}, {"feed", 10}, {"search", 5}, {"write", 30}}

// mixedWords title the seeded movies, so search finds some of them.
var mixedWords = []string{"heat", "alien", "vertigo", "brazil", "fargo", "memento", "ran", "psycho", "jaws", "rocky"}

// mixedResult is one load level's figures.
type mixedResult struct {
	rate    float64
	lat     map[string][]time.Duration
	errs    map[string]int
	firstEr string
	rss     int64 // server peak RSS, KiB
}

// mixedLoad runs the mixed load against a server child at every size and client count, each
// level on a fresh copy of the seeded database (the writes of one level do not grow the next),
// and returns a row per level and the ratios the targets are about.
func mixedLoad(ctx context.Context, dir string, o options, log *slog.Logger) ([]row, error) {
	var rows []row
	res := map[[2]int]mixedResult{}
	seeds := map[int]string{}
	users := map[int][]string{}
	for _, size := range o.mixedSizes {
		seeds[size] = filepath.Join(dir, fmt.Sprintf("mixed-seed-%d.db", size))
		u, err := mixedSeed(ctx, seeds[size], size, log)
		if err != nil {
			return nil, fmt.Errorf("seed %d reviews: %w", size, err)
		}
		users[size] = u
	}
	// The sizes run back to back at each client count, in alternating order, so that load from
	// elsewhere on the machine falls on both alike and their ratio holds.
	for i, clients := range o.mixedClients {
		sizes := slices.Clone(o.mixedSizes)
		if i%2 == 1 {
			slices.Reverse(sizes)
		}
		for _, size := range sizes {
			path := filepath.Join(dir, fmt.Sprintf("mixed-%d-%d.db", size, clients))
			if err := copyFile(seeds[size], path); err != nil {
				return nil, err
			}
			r, err := mixedRun(ctx, path, users[size], clients, o.mixedD)
			if err != nil {
				return nil, fmt.Errorf("mixed %d reviews, %d clients: %w", size, clients, err)
			}
			res[[2]int{size, clients}] = r
			fmt.Fprintf(os.Stderr, "done: mixed %d/%d\n", size, clients)
		}
	}
	for _, size := range o.mixedSizes {
		for _, clients := range o.mixedClients {
			r := res[[2]int{size, clients}]
			var b strings.Builder
			fmt.Fprintf(&b, "%.0f req/s; p50/p99", r.rate)
			for _, rt := range mixedRoutes {
				s := r.lat[rt.name]
				slices.Sort(s)
				fmt.Fprintf(&b, " %s %s/%s", rt.name, round(quantile(s, 0.5)), round(quantile(s, 0.99)))
			}
			nerr := 0
			for _, n := range r.errs {
				nerr += n
			}
			fmt.Fprintf(&b, "; all p99 %s; %d errors/timeouts; server peak RSS %.1f MiB", round(time.Duration(p99All(r))), nerr, float64(r.rss)/1024)
			if r.firstEr != "" {
				fmt.Fprintf(&b, " (first: %s)", r.firstEr)
			}
			rows = append(rows, row{fmt.Sprintf("mixed: %d reviews, %d clients", size, clients), b.String()})
		}
	}
	lo, hi := slices.Min(o.mixedClients), slices.Max(o.mixedClients)
	for _, size := range o.mixedSizes {
		rows = append(rows, row{fmt.Sprintf("mixed: %d reviews, %d vs %d clients", size, hi, lo),
			fmt.Sprintf("%.2f× the req/s (target ≥ 1)", res[[2]int{size, hi}].rate/res[[2]int{size, lo}].rate)})
	}
	if len(o.mixedSizes) > 1 {
		small, big := slices.Min(o.mixedSizes), slices.Max(o.mixedSizes)
		for _, c := range o.mixedClients {
			a, b := res[[2]int{small, c}], res[[2]int{big, c}]
			rows = append(rows, row{fmt.Sprintf("mixed: %d vs %d reviews, %d clients", big, small, c),
				fmt.Sprintf("%.2f× the req/s, %.2f× the p99 (target within 1.5×)", b.rate/a.rate, p99All(b)/p99All(a))})
		}
	}
	return rows, nil
}

func p99All(r mixedResult) float64 {
	all := slices.Concat(r.lat["diary"], r.lat["movie"], r.lat["feed"], r.lat["search"], r.lat["write"])
	slices.Sort(all)
	return float64(quantile(all, 0.99))
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// mixedSeed creates the database at path: mixedUsers users registered through the API (so they
// can log in), mixedMovies movies in the search index and size reviews spread over both, and
// returns the users' ids in order (user i's email is mixed<i>@example.test).
func mixedSeed(ctx context.Context, path string, size int, log *slog.Logger) ([]string, error) {
	srv, err := startServerChild(ctx, path)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	var users []string
	for i := range mixedUsers {
		body, err := writePathPost(ctx, client, srv.base+"/api/v1/auth/register", "", mixedCreds(i), http.StatusCreated)
		if err != nil {
			srv.stop()
			return nil, err
		}
		var reg struct {
			UserID string `json:"user_id"`
		}
		if err := json.Unmarshal(body, &reg); err != nil {
			srv.stop()
			return nil, err
		}
		users = append(users, reg.UserID)
	}
	if _, err := srv.stop(); err != nil {
		return nil, err
	}
	// Movies and reviews straight into the tables, in one transaction: the triggers keep the
	// counts as any write would.
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on&_busy_timeout=10000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	movies := make([]string, mixedMovies)
	for i := range movies {
		movies[i] = uuid.NewString()
		if _, err := tx.ExecContext(ctx, `INSERT INTO movies (id, title, release_year) VALUES (?, ?, ?)`,
			movies[i], mixedTitle(i), 1950+i%70); err != nil {
			return nil, err
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium, watched_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'streaming', ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, uint64(size)))
	base := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range size {
		at := base.Add(time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour)))).Format("2006-01-02T15:04:05.000Z")
		if _, err := ins.ExecContext(ctx, uuid.NewString(), users[i%len(users)], movies[rng.IntN(len(movies))], 1+rng.IntN(5),
			"A seeded review, long enough to look like one.", at, at, at); err != nil {
			return nil, err
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	// The search index, as the worker's reindex handler builds it.
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	for _, m := range movies {
		if err := s.IndexMovie(ctx, uuid.MustParse(m), false); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return users, err
}

func mixedCreds(i int) string {
	return fmt.Sprintf(`{"email":"mixed%d@example.test","username":"mixed%d","password":"password-bench"}`, i, i)
}

func mixedTitle(i int) string { return fmt.Sprintf("%s %d", mixedWords[i%len(mixedWords)], i) }

// mixedRun serves the database at path from a server child, logs every user in and runs the
// mixed load with clients concurrent clients for d.
func mixedRun(ctx context.Context, path string, users []string, clients int, d time.Duration) (mixedResult, error) {
	srv, err := startServerChild(ctx, path)
	if err != nil {
		return mixedResult{}, err
	}
	defer srv.stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	tokens := make([]string, len(users))
	for i := range users {
		body, err := writePathPost(ctx, client, srv.base+"/api/v1/auth/login", "", mixedCreds(i), http.StatusOK)
		if err != nil {
			return mixedResult{}, err
		}
		var login struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(body, &login); err != nil {
			return mixedResult{}, err
		}
		tokens[i] = login.Token
	}
	var movies []string
	{
		// The movie ids, from the feed's first pages.
		body, err := mixedGet(ctx, client, srv.base+"/api/v1/activity-feed?limit=100")
		if err != nil {
			return mixedResult{}, err
		}
		var feed struct {
			Items []struct {
				Movie struct {
					ID string `json:"id"`
				} `json:"movie"`
			} `json:"items"`
		}
		if err := json.Unmarshal(body, &feed); err != nil {
			return mixedResult{}, err
		}
		for _, it := range feed.Items {
			if it.Movie.ID != "" {
				movies = append(movies, it.Movie.ID)
			}
		}
		if len(movies) == 0 {
			return mixedResult{}, fmt.Errorf("no movie id in the feed: %.300s", body)
		}
	}
	sorts := []string{"date_desc", "date_asc", "rating_desc", "rating_asc"}
	total := 0
	for _, r := range mixedRoutes {
		total += r.weight
	}
	var (
		mu  sync.Mutex
		res = mixedResult{lat: map[string][]time.Duration{}, errs: map[string]int{}}
		wg  sync.WaitGroup
	)
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			lat := map[string][]time.Duration{}
			errs := map[string]int{}
			first := ""
			for runCtx.Err() == nil {
				pick, name := rng.IntN(total), ""
				for _, r := range mixedRoutes {
					if pick < r.weight {
						name = r.name
						break
					}
					pick -= r.weight
				}
				u := rng.IntN(len(users))
				t0 := time.Now()
				var err error
				switch name {
				case "diary":
					_, err = mixedGet(ctx, client, fmt.Sprintf("%s/api/v1/diary?user_id=%s&limit=20&offset=%d&sort_by=%s",
						srv.base, users[u], 20*rng.IntN(3), sorts[rng.IntN(len(sorts))]))
				case "movie":
					_, err = mixedGet(ctx, client, srv.base+"/api/v1/movies/"+movies[rng.IntN(len(movies))]+"?limit=20")
				case "feed":
					_, err = mixedGet(ctx, client, srv.base+"/api/v1/activity-feed?limit=20")
				case "search":
					_, err = mixedGet(ctx, client, srv.base+"/api/v1/search?limit=10&q="+mixedWords[rng.IntN(len(mixedWords))])
				case "write":
					i := rng.IntN(mixedMovies)
					_, err = writePathPost(ctx, client, srv.base+"/api/v1/reviews", tokens[u],
						fmt.Sprintf(`{"manual_title":%q,"manual_release_year":%d,"rating":%d,"watched_at":"2025-06-01"}`,
							mixedTitle(i), 1950+i%70, 1+rng.IntN(5)), http.StatusCreated)
				}
				if err != nil {
					errs[name]++
					if first == "" {
						first = err.Error()
					}
					continue
				}
				lat[name] = append(lat[name], time.Since(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			for k, v := range lat {
				res.lat[k] = append(res.lat[k], v...)
			}
			for k, v := range errs {
				res.errs[k] += v
			}
			if res.firstEr == "" {
				res.firstEr = first
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	n := 0
	for _, v := range res.lat {
		n += len(v)
	}
	res.rate = float64(n) / elapsed.Seconds()
	res.rss, err = srv.stop()
	return res, err
}

func mixedGet(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %.200s", url, resp.StatusCode, body)
	}
	return body, nil
}

// serverChild is the API served over a database by this binary run as `bench server-child`, a
// process of its own so its RSS is the server's alone.
type serverChild struct {
	cmd  *exec.Cmd
	base string
	done bool
}

func startServerChild(ctx context.Context, path string) (*serverChild, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "server-child", "-db", path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("server child: %w", err)
	}
	return &serverChild{cmd: cmd, base: "http://" + strings.TrimSpace(line)}, nil
}

// stop reads the child's peak RSS (KiB), then ends it with SIGTERM and waits.
func (c *serverChild) stop() (int64, error) {
	if c.done {
		return 0, nil
	}
	c.done = true
	rss := procHWM(c.cmd.Process.Pid)
	c.cmd.Process.Signal(syscall.SIGTERM)
	err := c.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil // terminated by the signal
	}
	return rss, err
}

// procHWM is a process's peak resident set (VmHWM) in KiB, or -1 where /proc has none.
func procHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// serverChild serves the API over -db on a loopback port it prints, until SIGTERM.
func serverChildMain(args []string) int {
	fs := flag.NewFlagSet("server-child", flag.ContinueOnError)
	path := fs.String("db", "", "database")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := sqlite.OpenMigrated(ctx, *path, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server child:", err)
		return 1
	}
	defer store.Close()
	api, err := app.NewAPI(store, app.Options{
		Log: log, BaseURL: "http://127.0.0.1", Secret: []byte("bench secret, thirty-two bytes!!"),
		AllowRegistration: true, AuthRateLimit: 100000, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "server child:", err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "server child:", err)
		return 1
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Println(ln.Addr().String())
	// BENCH_SERVER_CPUPROFILE=prefix profiles each server child to prefix-<pid>.
	if prefix := os.Getenv("BENCH_SERVER_CPUPROFILE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s-%d", prefix, os.Getpid())); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	// BENCH_SERVER_TRACE=prefix writes an execution trace of each server child to prefix-<pid>.
	if prefix := os.Getenv("BENCH_SERVER_TRACE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s-%d", prefix, os.Getpid())); err == nil {
			trace.Start(f)
			defer trace.Stop()
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	srv.Close()
	return 0
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
