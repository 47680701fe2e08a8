package nats

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
)

// cluster is three embedded JetStream servers routed together on loopback.
type cluster struct {
	servers []*server.Server
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster starts size JetStream nodes routed to each other. The cluster ports are picked
// free and then bound by the servers, so another process may take one in between (an outgoing
// connection's ephemeral port): then a node never becomes ready, and the whole cluster is
// started again on new ports, up to three times.
func startCluster(t *testing.T, size int) *cluster {
	t.Helper()
	for try := 1; ; try++ {
		c, ok := tryCluster(t, size)
		if ok {
			return c
		}
		for _, ns := range c.servers {
			ns.Shutdown()
			ns.WaitForShutdown()
		}
		if try == 3 {
			t.Fatal("cluster node not ready, three times over")
		}
		t.Logf("cluster node not ready (a port taken meanwhile?); starting the cluster again")
	}
}

func tryCluster(t *testing.T, size int) (*cluster, bool) {
	ports := make([]int, size)
	routes := make([]string, size)
	for i := range ports {
		ports[i] = freePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", ports[i])
	}
	c := &cluster{}
	for i := range size {
		ns, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "moviesdiary", Host: "127.0.0.1", Port: ports[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		})
		if err != nil {
			t.Fatal(err)
		}
		ns.Start()
		c.servers = append(c.servers, ns)
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	}
	for _, ns := range c.servers {
		if !ns.ReadyForConnections(10 * time.Second) {
			return c, false
		}
	}
	return c, true
}

// url lists every node, as NATS_URL does for a cluster.
func (c *cluster) url() string {
	var urls []string
	for _, ns := range c.servers {
		urls = append(urls, ns.ClientURL())
	}
	return strings.Join(urls, ",")
}

// kill shuts the named node down.
func (c *cluster) kill(t *testing.T, name string) {
	t.Helper()
	for _, ns := range c.servers {
		if ns.Name() == name {
			ns.Shutdown()
			ns.WaitForShutdown()
			return
		}
	}
	t.Fatalf("no node %q", name)
}

// TestClusterSurvivesTheStreamLeadersDeath: a stream replicated on three JetStream nodes
// (NATS_STREAM_REPLICAS=3) loses its leader while events flow. Nothing is lost — every event
// reaches every handler, its row done — and nothing runs twice at once.
func TestClusterSurvivesTheStreamLeadersDeath(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	c := startCluster(t, 3)
	conn := dial(t, c.url(), log)
	js := newJetStream(t, conn)
	ctx := context.Background()
	var cfg SetupConfig
	deliverytest.Eventually(t, 60*time.Second, "the replicated stream created once the cluster has a leader", func() bool {
		cfg = SetupConfig{Stream: "EVENTS", Consumer: "worker", Prefix: testPrefix, MaxDeliver: 5, AckWait: 2 * time.Second,
			MaxAge: testMaxAge, Replicas: 3, Logger: log}
		_, err := Setup(ctx, js, cfg)
		return err == nil
	})
	cons, err := Setup(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 || info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatalf("stream replicas %d, cluster %+v; want three replicas with a leader", info.Config.Replicas, info.Cluster)
	}
	leader := info.Cluster.Leader

	store := openStore(t)
	db := rawDB(t, store)
	rec := newRecorder()
	startConsumer(t, conn, cons, store, rec.handlers("w"), delivery.Config{BackoffBase: 20 * time.Millisecond}, log)
	startRelay(t, conn, store, RelayConfig{Logger: log, BackoffBase: 50 * time.Millisecond, AckTimeout: 2 * time.Second,
		Horizon: Horizon(5, 2*time.Second, 20*time.Millisecond)})
	first := enqueue(t, store, 200)
	deliverytest.Eventually(t, 30*time.Second, "the first events handled", func() bool { return rec.handledAll(first[:50]) })

	c.kill(t, leader) // mid-run: the rest of the first batch and the second are still to come
	second := enqueue(t, store, 200)
	all := append(first, second...)
	deliverytest.Eventually(t, 120*time.Second, "every event handled and its row done after the leader died", func() bool {
		return rec.handledAll(all) && queryInt(t, db, `SELECT count(*) FROM event_queue WHERE status = 'done'`) == len(all)
	})
	rec.checkOnce(t, all)
	deliverytest.Eventually(t, 30*time.Second, "a new stream leader", func() bool {
		info, err := s.Info(ctx)
		return err == nil && info.Cluster != nil && info.Cluster.Leader != "" && info.Cluster.Leader != leader
	})
}
