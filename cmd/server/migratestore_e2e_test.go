package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/config"
)

// TestMigrateStoreMovesARunningInstance: an instance served on SQLite (an account, a review, a
// signed-in session) is moved with `server migrate-store`, and the server started on PostgreSQL
// with the same data directory serves it: the old access token still works (the generated JWT
// secret moved into the database), the diary holds the review, and the password logs in.
func TestMigrateStoreMovesARunningInstance(t *testing.T) {
	dir := t.TempDir()
	serve := func(databaseURL string) (base string, stop func()) {
		t.Helper()
		t.Setenv("DATA_DIR", dir)
		t.Setenv("DATABASE_URL", databaseURL)
		t.Setenv("REGISTRATION_MODE", "open")
		cfg, err := config.Load()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Host, cfg.Port, cfg.ServerMetricsAddr = "127.0.0.1", 0, ""
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan string, 1)
		errc := make(chan error, 1)
		go func() { errc <- run(ctx, cfg, testLog(t), time.Now, addr) }()
		select {
		case a := <-addr:
			base = "http://" + a
		case err := <-errc:
			t.Fatalf("server on %q: %v", databaseURL, err)
		}
		return base, func() {
			http.DefaultClient.CloseIdleConnections()
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("shutdown: %v", err)
			}
		}
	}

	base, stop := serve("")
	call(t, "POST", base+"/api/v1/auth/register", "", `{"email":"move@example.test","username":"mover","password":"password-move"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(call(t, "POST", base+"/api/v1/auth/login", "", `{"email":"move@example.test","password":"password-move"}`, 200), &login); err != nil {
		t.Fatal(err)
	}
	call(t, "POST", base+"/api/v1/reviews", login.Token,
		`{"manual_title":"Heat","manual_release_year":1995,"rating":5,"watched_at":"2024-03-01"}`, 201)
	stop()

	url := pgtest.Empty(t)
	t.Setenv("DATABASE_URL", "")
	var out, errOut bytes.Buffer
	if code := cli(context.Background(), []string{"migrate-store", "--to", url}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("migrate-store: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "now kept in the database") {
		t.Errorf("the advice does not say the secret moved:\n%s", out.String())
	}

	base, stop = serve(url)
	defer stop()
	call(t, "GET", base+"/api/v1/settings", login.Token, "", 200) // the session survived the move
	diary := string(call(t, "GET", base+"/api/v1/diary", login.Token, "", 200))
	if !strings.Contains(diary, "Heat") || !strings.Contains(diary, `"total_count":1`) {
		t.Errorf("diary on PostgreSQL: %s", diary)
	}
	call(t, "POST", base+"/api/v1/auth/login", "", `{"email":"move@example.test","password":"password-move"}`, 200)
}
