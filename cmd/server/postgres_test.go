package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/delivery/deliverytest"
)

// TestSeveralHostsOnPostgres runs the real binaries as a multi-host instance would: two servers
// and two workers on one PostgreSQL database, each with its own data directory (no shared disk).
// An account registered on one server logs in on the other, whose token the first accepts (the
// generated JWT secret lives in the database); a review logged on the second server is
// delivered once, by one of the two workers.
func TestSeveralHostsOnPostgres(t *testing.T) {
	url := postgrestest.URL(t)
	bin := buildBinaries(t)
	host := func(port int) []string {
		return append(os.Environ(), "DATABASE_URL="+url, "DATA_DIR="+t.TempDir(), "REGISTRATION_MODE=open", "HOST=127.0.0.1",
			"PORT="+strconv.Itoa(port), "LOG_LEVEL=debug", "EVENT_BUS_BACKEND=db", "WORKER_METRICS_ADDR=",
			"SERVER_METRICS_ADDR=", "BASE_URL=http://md.example.test", "DATABASE_MAX_CONNS=4", "JWT_SECRET=")
	}
	ports := []int{freePort(t), freePort(t)}
	bases := make([]string, 2)
	for i, port := range ports {
		start(t, filepath.Join(bin, "server"), host(port), t.Output())
		bases[i] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	workerLogs := []*lines{{}, {}}
	workers := make([]*exec.Cmd, 2)
	for i := range workers {
		workers[i] = start(t, filepath.Join(bin, "worker"), host(ports[0]), workerLogs[i])
	}
	for _, base := range bases {
		deliverytest.Eventually(t, 60*time.Second, base+" ready", func() bool {
			resp, err := http.Get(base + "/ready")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}

	call(t, "POST", bases[0]+"/api/v1/auth/register", "", `{"email":"pg@example.test","username":"pg","password":"password-pg"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(call(t, "POST", bases[1]+"/api/v1/auth/login", "", `{"email":"pg@example.test","password":"password-pg"}`, 200), &login); err != nil {
		t.Fatal(err)
	}
	call(t, "GET", bases[0]+"/api/v1/settings", login.Token, "", 200)
	call(t, "POST", bases[1]+"/api/v1/reviews", login.Token,
		`{"external_metadata_id":"tt0113277","manual_title":"Heat","manual_release_year":1995,"rating":5,"watched_at":"2024-03-01"}`, 201)

	db, err := sqlx.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var eventID string
	if err := db.Get(&eventID, `SELECT event_id FROM event_queue WHERE event_type = 'ReviewLogged'`); err != nil {
		t.Fatalf("no ReviewLogged in the outbox: %v", err)
	}
	deliverytest.Eventually(t, 60*time.Second, "ReviewLogged done in the outbox", func() bool {
		var status string
		return db.Get(&status, `SELECT status FROM event_queue WHERE event_id = $1`, eventID) == nil && status == "done"
	})
	for _, w := range workers {
		if err := w.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := w.Wait(); err != nil {
			t.Fatalf("worker exit: %v", err)
		}
	}
	delivered := 0
	for _, log := range workerLogs {
		for _, l := range log.all() {
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == "event delivered" && rec["event_id"] == eventID {
				delivered++
			}
		}
	}
	if delivered != 1 {
		t.Errorf("ReviewLogged %s delivered %d times by the two workers, want once", eventID, delivered)
	}
}
