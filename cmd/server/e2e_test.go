package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"

	_ "github.com/mattn/go-sqlite3"
)

// TestEndToEnd builds the real server and worker binaries, runs them on one database, registers
// and logs a review over HTTP, and reads the worker's debug log: ReviewLogged is delivered, once.
func TestEndToEnd(t *testing.T) {
	bin := buildBinaries(t)
	data := t.TempDir()
	port := freePort(t)
	env := append(os.Environ(), "DATA_DIR="+data, "REGISTRATION_MODE=open", "HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "LOG_LEVEL=debug",
		"EVENT_BUS_BACKEND=db", "WORKER_METRICS_ADDR=", "SERVER_METRICS_ADDR=", "BASE_URL=http://127.0.0.1:"+strconv.Itoa(port))
	start(t, filepath.Join(bin, "server"), env, io.Discard)
	workerLog := &lines{}
	worker := start(t, filepath.Join(bin, "worker"), env, workerLog)

	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deliverytest.Eventually(t, 60*time.Second, "server ready", func() bool {
		resp, err := http.Get(base + "/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	call(t, "POST", base+"/api/v1/auth/register", "", `{"email":"e2e@example.test","username":"e2e","password":"password-e2e"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(call(t, "POST", base+"/api/v1/auth/login", "", `{"email":"e2e@example.test","password":"password-e2e"}`, 200), &login); err != nil {
		t.Fatal(err)
	}
	call(t, "POST", base+"/api/v1/reviews", login.Token,
		`{"external_metadata_id":"tt0113277","manual_title":"Heat","manual_release_year":1995,"rating":5,"watched_at":"2024-03-01"}`, 201)

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(data, "moviesdiary.db")+"?_busy_timeout=10000&mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var eventID string
	if err := db.QueryRow(`SELECT event_id FROM event_queue WHERE event_type = 'ReviewLogged'`).Scan(&eventID); err != nil {
		t.Fatalf("no ReviewLogged in the outbox: %v", err)
	}
	deliverytest.Eventually(t, 60*time.Second, "ReviewLogged done in the outbox", func() bool {
		var status string
		return db.QueryRow(`SELECT status FROM event_queue WHERE event_id = ?`, eventID).Scan(&status) == nil && status == "done"
	})
	// Stop the worker so its log is complete, then count the deliveries of this event.
	if err := worker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := worker.Wait(); err != nil {
		t.Fatalf("worker exit: %v", err)
	}
	delivered := 0
	for _, l := range workerLog.all() {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil {
			continue
		}
		if rec["msg"] == "event delivered" && rec["event_id"] == eventID {
			delivered++
			if rec["event_type"] != "ReviewLogged" {
				t.Errorf("delivery line %s: event_type %v", l, rec["event_type"])
			}
		}
	}
	if delivered != 1 {
		t.Errorf("ReviewLogged %s delivered %d times in the worker log, want once", eventID, delivered)
	}
}

// buildBinaries builds the server and the worker into a temporary directory and returns it.
func buildBinaries(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", bin+string(filepath.Separator),
		"moviesdiary/cmd/server", "moviesdiary/cmd/worker")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// start runs a binary until the test ends, copying its stderr to w.
func start(t *testing.T, path string, env []string, w io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Env = env
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
			}
		}
	})
	return cmd
}

// lines collects a process's output, line by line, safely for concurrent use.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func call(t *testing.T, method, url, token, body string, want int) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, url, resp.StatusCode, out, want)
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
