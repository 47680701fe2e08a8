package nats

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// serverHostEnv makes the test binary a nats-server host ("port|store dir"), for the tests that
// must kill the server.
const serverHostEnv = "MOVIESDIARY_TEST_NATS_SERVER"

const testPrefix = "md.test"

// testMaxAge is the stream max age the tests set up (the worker passes the ledger's retention).
const testMaxAge = 30 * 24 * time.Hour

func TestMain(m *testing.M) {
	if spec := os.Getenv(serverHostEnv); spec != "" {
		os.Exit(hostServer(spec))
	}
	goleak.VerifyTestMain(m)
}

// hostServer runs a JetStream server until SIGTERM, printing "ready" once it accepts clients.
func hostServer(spec string) int {
	portText, dir, _ := strings.Cut(spec, "|")
	port, err := strconv.Atoi(portText)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad port:", err)
		return 2
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "nats server not ready")
		return 1
	}
	fmt.Println("ready")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	<-ctx.Done()
	ns.Shutdown()
	ns.WaitForShutdown()
	return 0
}

// embeddedServer starts an in-process JetStream server on a random port and returns its URL.
func embeddedServer(t testing.TB) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}

// serverProcess is a nats-server in a child process, so a test can kill it and start it again on
// the same port and store.
type serverProcess struct {
	t    *testing.T
	port int
	dir  string
	cmd  *exec.Cmd
}

func newServerProcess(t *testing.T) *serverProcess {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	p := &serverProcess{t: t, port: port, dir: t.TempDir()}
	t.Cleanup(p.kill)
	return p
}

func (p *serverProcess) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", p.port) }

func (p *serverProcess) start() {
	p.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d|%s", serverHostEnv, p.port, p.dir))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := sc.Scan() && sc.Text() == "ready"
		ready <- ok
		for sc.Scan() {
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			p.t.Fatal("nats server process did not start")
		}
	case <-time.After(30 * time.Second):
		p.t.Fatal("nats server process not ready after 30s")
	}
	p.cmd = cmd
}

// kill SIGKILLs the server: no graceful shutdown, like a crash or a pulled plug.
func (p *serverProcess) kill() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

// logSink records every log record; a failed test prints them.
type logSink struct {
	mu      sync.Mutex
	records []slog.Record
}

func newLogger(t testing.TB) (*slog.Logger, *logSink) {
	s := &logSink{}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range s.records {
			var b strings.Builder
			r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
			t.Logf("%s %s %s%s", r.Time.Format("15:04:05.000"), r.Level, r.Message, b.String())
		}
	})
	return slog.New(s), s
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	s.records = append(s.records, r.Clone())
	s.mu.Unlock()
	return nil
}
func (s *logSink) WithAttrs(as []slog.Attr) slog.Handler {
	return &logSinkView{s: s, attrs: as}
}
func (s *logSink) WithGroup(string) slog.Handler { return s }

// logSinkView is a logSink with attributes added by Logger.With.
type logSinkView struct {
	s     *logSink
	attrs []slog.Attr
}

func (v *logSinkView) Enabled(context.Context, slog.Level) bool { return true }
func (v *logSinkView) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(v.attrs...)
	return v.s.Handle(ctx, r)
}
func (v *logSinkView) WithAttrs(as []slog.Attr) slog.Handler {
	return &logSinkView{s: v.s, attrs: append(append([]slog.Attr(nil), v.attrs...), as...)}
}
func (v *logSinkView) WithGroup(string) slog.Handler { return v }

// find returns the records with message msg, each as its attributes.
func (s *logSink) find(msg string) []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]string
	for _, r := range s.records {
		if r.Message != msg {
			continue
		}
		attrs := map[string]string{"level": r.Level.String()}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		out = append(out, attrs)
	}
	return out
}

// openStore opens and migrates a SQLite database in a temporary directory.
func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	return sqlitetest.Open(t, filepath.Join(t.TempDir(), "md.db"))
}

// rawDB is a plain connection to the store's file, for assertions and foreign-writer rows.
func rawDB(t testing.TB, s *sqlite.Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+s.Path()+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// enqueue writes n events and returns their ids in order.
func enqueue(t testing.TB, s *sqlite.Store, n int) []string {
	t.Helper()
	events := make([]domain.Event, n)
	for i := range events {
		events[i] = domain.SearchReindexRequested{}
	}
	db := rawDB(t, s)
	before := queryInt(t, db, `SELECT coalesce(max(id), 0) FROM event_queue`)
	if err := s.Enqueue(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT event_id FROM event_queue WHERE id > ? ORDER BY id`, before)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// dial connects to url with a short reconnect wait.
func dial(t testing.TB, url string, log *slog.Logger) *Conn {
	t.Helper()
	c, err := Dial(ConnConfig{URL: url, ReconnectWait: 20 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func newJetStream(t testing.TB, c *Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(c.NATS())
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// recorder is a set of handlers that count their runs per (event, handler) and per worker, and
// notice two runs of one (event, handler) overlapping.
type recorder struct {
	mu       sync.Mutex
	runs     map[delivery.Key]int
	running  map[delivery.Key]int
	overlaps int
	byWorker map[string]int
	attempts map[string][]int       // event id → attempt numbers seen by the first handler
	times    map[string][]time.Time // event id → when the first handler started
	fail     func(e delivery.Envelope) error
}

func newRecorder() *recorder {
	return &recorder{runs: map[delivery.Key]int{}, running: map[delivery.Key]int{}, byWorker: map[string]int{},
		attempts: map[string][]int{}, times: map[string][]time.Time{}}
}

var handlerNames = []string{"rec-a", "rec-b", "rec-c"}

func (r *recorder) handlers(worker string) []delivery.Handler {
	var hs []delivery.Handler
	for i, name := range handlerNames {
		hs = append(hs, delivery.Handler{Name: name, Types: domain.EventTypes(), Handle: func(_ context.Context, e delivery.Envelope) error {
			k := delivery.Key{EventID: e.EventID, Handler: name}
			r.mu.Lock()
			r.running[k]++
			if r.running[k] > 1 {
				r.overlaps++
			}
			if i == 0 {
				r.byWorker[worker]++
				r.attempts[e.EventID] = append(r.attempts[e.EventID], e.Attempt)
				r.times[e.EventID] = append(r.times[e.EventID], time.Now())
			}
			fail := r.fail
			r.mu.Unlock()
			var err error
			if fail != nil {
				err = fail(e)
			}
			r.mu.Lock()
			r.running[k]--
			if err == nil {
				r.runs[k]++
			}
			r.mu.Unlock()
			return err
		}})
	}
	return hs
}

// handledAll reports whether every handler has succeeded for every id.
func (r *recorder) handledAll(ids []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		for _, h := range handlerNames {
			if r.runs[delivery.Key{EventID: id, Handler: h}] == 0 {
				return false
			}
		}
	}
	return true
}

// checkOnce fails unless every handler succeeded exactly once for every id, never overlapping.
func (r *recorder) checkOnce(t testing.TB, ids []string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		for _, h := range handlerNames {
			if n := r.runs[delivery.Key{EventID: id, Handler: h}]; n != 1 {
				t.Errorf("event %s handler %s ran %d times, want 1", id, h, n)
			}
		}
	}
	if r.overlaps > 0 {
		t.Errorf("%d overlapping runs of one handler for one event", r.overlaps)
	}
}

// startPump runs a Pump over src with the recorder's handlers until the test ends.
func startPump(t testing.TB, src delivery.Source, ledger delivery.Ledger, hs []delivery.Handler, cfg delivery.Config, log *slog.Logger) {
	t.Helper()
	cfg.Logger = log
	engine, err := delivery.NewEngine(cfg, ledger, hs...)
	if err != nil {
		t.Fatal(err)
	}
	pump := delivery.NewPump(src, engine, delivery.PumpConfig{BatchSize: 100, Concurrency: 8, Grace: 5 * time.Second, Logger: log})
	run(t, "pump", pump.Run)
}

// run runs a part until the test ends, then cancels its context, waits for it to return and
// fails the test if it returned an error.
func run(t testing.TB, name string, part func(context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- part(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// startRelay runs a relay over the store's queue until the test ends.
func startRelay(t testing.TB, conn *Conn, s *sqlite.Store, cfg RelayConfig) {
	t.Helper()
	q := s.Queue(outbox.QueueConfig{MaxAttempts: 5, Logger: cfg.Logger})
	t.Cleanup(func() { q.Close() })
	runRelay(t, conn, q, cfg)
}

func runRelay(t testing.TB, conn *Conn, outbox delivery.Source, cfg RelayConfig) (stop func()) {
	t.Helper()
	cfg.Prefix = testPrefix
	r, err := NewRelay(conn, outbox, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, "relay", r.Run)
}

// setup creates the stream and consumer the way the worker does.
func setup(t testing.TB, js jetstream.JetStream, maxDeliver int, ackWait time.Duration, log *slog.Logger) jetstream.Consumer {
	t.Helper()
	cons, err := Setup(context.Background(), js, SetupConfig{Stream: "EVENTS", Consumer: "worker", Prefix: testPrefix,
		MaxDeliver: maxDeliver, AckWait: ackWait, MaxAge: testMaxAge, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return cons
}

// startConsumer runs a JetStream worker (consumer + pump) with the recorder's handlers.
func startConsumer(t testing.TB, conn *Conn, cons jetstream.Consumer, s *sqlite.Store, hs []delivery.Handler, cfg delivery.Config, log *slog.Logger) *Consumer {
	t.Helper()
	c := NewConsumer(conn, cons, s.Ledger(), ConsumerConfig{Prefix: testPrefix, WaitMax: time.Second, Logger: log})
	run(t, "consumer", c.Run) // registered first, so it stops after the pump
	startPump(t, c, s.Ledger(), hs, cfg, log)
	return c
}

func streamMsgs(t testing.TB, js jetstream.JetStream) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

func consumerInfo(t testing.TB, cons jetstream.Consumer) *jetstream.ConsumerInfo {
	t.Helper()
	info, err := cons.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// drained reports whether the consumer has nothing left to deliver or to be acked.
func drained(t testing.TB, cons jetstream.Consumer) bool {
	info := consumerInfo(t, cons)
	return info.NumPending == 0 && info.NumAckPending == 0
}
