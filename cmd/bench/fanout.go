package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/federation"
)

// fanoutCase is one fan-out: inboxes spread over hosts, a share of them black-holed (they
// accept the connection and never answer) and a share down (they refuse it) for the whole run.
type fanoutCase struct {
	inboxes, hosts  int
	holes, downHost float64 // shares of the hosts
}

// fanoutScenarios measures the federation delivery lane (docs/adr/0005-federation-delivery.md):
// one review fanned out to inboxes on loopback servers (one listener, one address of its own
// each: 127.x.y.z), queued by its publication and sent by the lane, every delivery signed
// with a 2048-bit RSA key as in production; and, meanwhile, local events (20/s) through the
// same pump, whose commit→handler latency is compared with the same load when idle. The remote
// servers run in a child process at a lower priority (hostsChild): in production they are other
// machines.
func fanoutScenarios(ctx context.Context, dir string, o options, log *slog.Logger, add func(string, string, ...any)) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	for _, c := range []fanoutCase{
		{inboxes: 1000, hosts: 100},
		{inboxes: 10000, hosts: 1000},
		{inboxes: 1000, hosts: 100, holes: 0.1, downHost: 0.1},
		{inboxes: 10000, hosts: 1000, holes: 0.1, downHost: 0.1},
	} {
		r, err := fanout(ctx, dir, c, key, o, log)
		if err != nil {
			return fmt.Errorf("fan-out to %d inboxes on %d hosts: %w", c.inboxes, c.hosts, err)
		}
		name := fmt.Sprintf("fanout: %d inboxes on %d hosts", c.inboxes, c.hosts)
		if c.holes > 0 {
			name += fmt.Sprintf(", %.0f%% black-holed, %.0f%% down", 100*c.holes, 100*c.downHost)
		}
		add(name, "last healthy delivery after %s (%.0f deliveries/s); %.0f µs CPU per delivery (signing, the client's HTTP, "+
			"the store; the remote servers run in a child process); %d attempts at dead hosts; local commit→handler %s, idle %s; process peak RSS %.0f MiB",
			r.elapsed.Round(time.Millisecond), float64(r.healthy)/r.elapsed.Seconds(), float64(r.cpu.Microseconds())/float64(r.healthy),
			r.deadAttempts, percentiles(r.busy), percentiles(r.idle), float64(peakRSS())/1024)
	}
	return nil
}

type fanoutResult struct {
	elapsed      time.Duration
	healthy      int
	cpu          time.Duration
	deadAttempts int64
	idle, busy   []time.Duration
}

// loopbackHosts are the fan-out's servers: listeners on addresses of their own; black holes
// hold each request until the client gives up; a down host's listener is closed (connection
// refused).
type loopbackHosts struct {
	addrs   []string
	servers []*http.Server
}

func startHosts(n int, holes, down float64) (*loopbackHosts, error) {
	h := &loopbackHosts{}
	nHoles, nDown := int(holes*float64(n)), int(down*float64(n))
	for i := range n {
		ip := fmt.Sprintf("127.%d.%d.%d", 1+i/62500, (i/250)%250, 1+i%250)
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			h.close()
			return nil, err
		}
		hole := i < nHoles
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if hole {
				<-r.Context().Done()
				return
			}
			w.WriteHeader(http.StatusAccepted)
		})}
		h.addrs = append(h.addrs, ln.Addr().String())
		if i >= nHoles && i < nHoles+nDown {
			ln.Close() // down: nothing listens there
			continue
		}
		h.servers = append(h.servers, srv)
		go srv.Serve(ln)
	}
	return h, nil
}

func (h *loopbackHosts) close() {
	for _, s := range h.servers {
		s.Close()
	}
}

// hostsChild is `bench hosts-child`: it serves the fan-out's remote hosts, prints their
// addresses as one JSON line, and serves until its stdin closes. The remote servers live in a
// process of their own, at a lower CPU priority, because they are other machines in production:
// the worker's CPU per delivery and the local latency must not pay for their side of the HTTP.
func hostsChild(args []string) int {
	fs := flag.NewFlagSet("hosts-child", flag.ContinueOnError)
	n := fs.Int("hosts", 100, "hosts")
	holes := fs.Float64("holes", 0, "share black-holed")
	down := fs.Float64("down", 0, "share down")
	if fs.Parse(args) != nil {
		return 2
	}
	h, err := startHosts(*n, *holes, *down)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer h.close()
	if err := json.NewEncoder(os.Stdout).Encode(h.addrs); err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startHostsChild starts hostsChild at nice 10 and returns the hosts' addresses and its stop.
func startHostsChild(ctx context.Context, c fanoutCase) ([]string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, self, "hosts-child", "-hosts", strconv.Itoa(c.hosts),
		"-holes", strconv.FormatFloat(c.holes, 'f', -1, 64), "-down", strconv.FormatFloat(c.downHost, 'f', -1, 64))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, 10)
	var addrs []string
	if err := json.NewDecoder(stdout).Decode(&addrs); err != nil {
		stop()
		return nil, nil, fmt.Errorf("hosts child: %w", err)
	}
	return addrs, stop, nil
}

// signingSender POSTs through the production client, signing as a local actor would.
type signingSender struct {
	c   *activitypub.Client
	key *rsa.PrivateKey
}

func (s signingSender) Deliver(ctx context.Context, inbox string, activity []byte, _ uuid.UUID) error {
	return s.c.Post(ctx, inbox, activity, activitypub.Signer{KeyID: "https://bench.example/users/a#main-key", Key: s.key})
}

func fanout(ctx context.Context, dir string, c fanoutCase, key *rsa.PrivateKey, o options, log *slog.Logger) (fanoutResult, error) {
	var res fanoutResult
	addrs, stopHosts, err := startHostsChild(ctx, c)
	if err != nil {
		return res, err
	}
	defer stopHosts()
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, fmt.Sprintf("fanout-%d-%d-%v.db", c.inboxes, c.hosts, c.holes)), log)
	if err != nil {
		return res, err
	}
	defer store.Close()

	// The worker: a pump with a local handler timing commit→handler, and the lane beside it.
	var mu sync.Mutex
	sent := map[uuid.UUID]time.Time{}
	var lat []time.Duration
	lane := federation.NewLane(store, signingSender{c: activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: true}), key: key},
		federation.LaneConfig{Logger: log})
	local := delivery.Handler{Name: "local", Types: []string{"PosterSynced"}, Handle: func(_ context.Context, env delivery.Envelope) error {
		id := env.Event.(domain.PosterSynced).MovieID
		mu.Lock()
		if at, ok := sent[id]; ok {
			lat = append(lat, time.Since(at))
		}
		mu.Unlock()
		return nil
	}}
	engine, err := delivery.NewEngine(delivery.Config{Logger: log}, store.Ledger(), local)
	if err != nil {
		return res, err
	}
	q := store.Queue(outbox.QueueConfig{Logger: log})
	defer q.Close()
	pump := delivery.NewPump(q, engine, delivery.PumpConfig{BatchSize: o.batch, Concurrency: o.conc, Logger: log})
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = pump.Run(ctx) })
	wg.Go(func() { _ = lane.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()

	// localLoad enqueues local events at 20/s until stop is closed, and returns their latencies.
	localLoad := func(stop <-chan struct{}) []time.Duration {
		mu.Lock()
		lat = nil
		mu.Unlock()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				// The last ones are handled within a second.
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) {
					mu.Lock()
					n, want := len(lat), len(sent)
					mu.Unlock()
					if n >= want {
						break
					}
					time.Sleep(10 * time.Millisecond) // polling for the stragglers, not synchronising
				}
				mu.Lock()
				defer mu.Unlock()
				clear(sent)
				return append([]time.Duration(nil), lat...)
			case <-t.C:
				id := uuid.New()
				mu.Lock()
				sent[id] = time.Now()
				mu.Unlock()
				if err := store.Enqueue(ctx, domain.PosterSynced{MovieID: id}); err != nil {
					return nil
				}
			}
		}
	}
	// Idle for as long as the smaller fan-outs take, so both percentiles rest on similar counts.
	stop := make(chan struct{})
	time.AfterFunc(15*time.Second, func() { close(stop) })
	res.idle = localLoad(stop)

	// The fan-out: one publication with a delivery per inbox, queued for the lane in its
	// transaction, as the outbound handler publishes a review.
	activityID := "https://bench.example/activities/1"
	activity := []byte(`{"@context":"https://www.w3.org/ns/activitystreams","id":"` + activityID + `",` +
		`"type":"Create","actor":"https://bench.example/users/a","object":{"id":"https://bench.example/reviews/1","type":"Note",` +
		`"content":"a review of some length, as a Note carries it, with its movie and rating"}}`)
	signer := uuid.New()
	p := domain.Publication{ActivityID: activityID, Type: "Create", ActorID: signer, ObjectID: "https://bench.example/reviews/1",
		Activity: activity, Direct: true}
	var healthyInboxes int
	nHoles, nDown := int(c.holes*float64(c.hosts)), int(c.downHost*float64(c.hosts))
	for i := range c.inboxes {
		h := i % c.hosts
		if h >= nHoles+nDown {
			healthyInboxes++
		}
		inbox := fmt.Sprintf("http://%s/users/u%d/inbox", addrs[h], i)
		p.Deliveries = append(p.Deliveries, domain.Delivery{EventID: federation.DeliveryID(activityID, inbox),
			Event: domain.FederationDeliveryRequested{InboxURL: inbox, ActivityJSON: activity, SigningActorID: signer}})
	}
	cpu0, start := cpuTime(), time.Now()
	busyStop := make(chan struct{})
	busyDone := make(chan []time.Duration)
	go func() { busyDone <- localLoad(busyStop) }()
	if err := store.Publish(ctx, p); err != nil {
		return res, err
	}
	lane.Wake()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		counts, err := store.DeliveryCounts(ctx)
		if err != nil {
			return res, err
		}
		if counts["done"] >= healthyInboxes {
			break
		}
		if time.Now().After(deadline) {
			return res, errors.New("the healthy inboxes were not all reached within 10 minutes")
		}
		time.Sleep(100 * time.Millisecond) // polling the lane's table (a count of every row: not too often), not synchronising
	}
	res.elapsed, res.cpu, res.healthy = time.Since(start), cpuTime()-cpu0, healthyInboxes
	close(busyStop)
	res.busy = <-busyDone
	// A dead host never succeeds: its failures are every attempt it got.
	hs, err := store.FederationHosts(ctx)
	if err != nil {
		return res, err
	}
	for _, h := range hs {
		res.deadAttempts += int64(h.Failures)
	}
	return res, nil
}
