package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/delivery/deliverytest"
)

// TestImportSurvivesAServerKill builds the real server, uploads a 30,000-row Letterboxd file and
// SIGKILLs the server while the confirm is writing. The database then holds exactly the rows
// the first run wrote, each with its review and event; the restarted server finishes the import
// by itself; confirming again answers the whole import and writes nothing: every row is a
// review exactly once, with its ReviewLogged exactly once.
func TestImportSurvivesAServerKill(t *testing.T) {
	const rows = 30_000
	bin := t.TempDir()
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", bin+string(filepath.Separator), "moviesdiary/cmd/server")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data := t.TempDir()
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	env := append(os.Environ(), "DATA_DIR="+data, "REGISTRATION_MODE=open", "HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "LOG_LEVEL=error",
		"BASE_URL="+base)
	server := filepath.Join(bin, "server")
	up := func() *exec.Cmd {
		cmd := start(t, server, env, os.Stderr)
		deliverytest.Eventually(t, 60*time.Second, "server ready", func() bool {
			resp, err := http.Get(base + "/ready")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		return cmd
	}
	first := up()

	call(t, "POST", base+"/api/v1/auth/register", "", `{"email":"i@example.test","username":"importer","password":"password-i"}`, 201)
	var login struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(call(t, "POST", base+"/api/v1/auth/login", "", `{"email":"i@example.test","password":"password-i"}`, 200), &login); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("Date,Name,Year,Letterboxd URI,Rating\n")
	for i := range rows {
		fmt.Fprintf(&csv, "2024-01-%02d,Film %d,%d,https://boxd.it/%d,%d.5\n", 1+i%28, i, 1950+i%70, i, i%5)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "ratings.csv")
	_, _ = io.WriteString(fw, csv.String())
	_ = mw.Close()
	req, _ := http.NewRequest("POST", base+"/api/v1/import/sessions", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+login.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		SessionID string `json:"session_id"`
		RowCount  int    `json:"row_count"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != 200 || created.RowCount != rows {
		t.Fatalf("upload = %d %+v", resp.StatusCode, created)
	}
	indices := make([]int, rows)
	for i := range indices {
		indices[i] = i
	}
	confirmBody, _ := json.Marshal(map[string]any{"confirmed_indices": indices})
	confirmURL := base + "/api/v1/import/sessions/" + created.SessionID + "/confirm"

	// The first confirm dies with the server: its answer never comes.
	go func() {
		req, _ := http.NewRequest("POST", confirmURL, bytes.NewReader(confirmBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+login.Token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	type progress struct {
		Status   string `json:"status"`
		Progress struct {
			Confirmed int  `json:"confirmed"`
			Processed int  `json:"processed"`
			Imported  int  `json:"imported"`
			Running   bool `json:"running"`
		} `json:"progress"`
	}
	session := func() progress {
		var p progress
		if err := json.Unmarshal(call(t, "GET", base+"/api/v1/import/sessions/"+created.SessionID, login.Token, "", 200), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deliverytest.Eventually(t, 60*time.Second, "the confirm wrote its first batches", func() bool {
		return session().Progress.Processed >= 2000
	})
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(data, "moviesdiary.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// While the server is dead the database says exactly what the first run wrote: every row with
	// an outcome has its review and ReviewLogged, no row without one has either.
	written := count(`SELECT count(*) FROM import_rows WHERE outcome = 'imported'`)
	t.Logf("killed after %d of %d rows", written, rows)
	if written >= rows {
		t.Fatalf("the confirm finished before the kill: nothing was interrupted")
	}
	if r, e := count(`SELECT count(*) FROM reviews`), count(`SELECT count(*) FROM event_queue WHERE event_type = 'ReviewLogged'`); r != written || e != written {
		t.Fatalf("after the kill: %d rows imported, %d reviews, %d ReviewLogged", written, r, e)
	}

	// The restarted server finishes the import by itself, and says so on the session.
	up()
	deliverytest.Eventually(t, 120*time.Second, "the restarted server resumed the import", func() bool {
		p := session()
		if p.Progress.Imported < written {
			t.Fatalf("the session lost rows: %+v, %d were written", p, written)
		}
		return p.Status == "confirmed"
	})
	if n := count(`SELECT count(*) FROM reviews`); n != rows {
		t.Errorf("reviews after the resume = %d, want %d", n, rows)
	}

	var done struct {
		Imported          int               `json:"imported"`
		SkippedDuplicates int               `json:"skipped_duplicates"`
		Failed            []json.RawMessage `json:"failed"`
	}
	if err := json.Unmarshal(call(t, "POST", confirmURL, login.Token, string(confirmBody), 200), &done); err != nil {
		t.Fatal(err)
	}
	if done.Imported != rows || done.SkippedDuplicates != 0 || len(done.Failed) != 0 {
		t.Errorf("second confirm = imported %d, duplicates %d, failed %d; want %d, 0, 0", done.Imported, done.SkippedDuplicates, len(done.Failed), rows)
	}
	if n := count(`SELECT count(*) FROM reviews`); n != rows {
		t.Errorf("reviews = %d, want %d", n, rows)
	}
	if n := count(`SELECT count(*) FROM (SELECT DISTINCT user_id, movie_id, substr(watched_at, 1, 10) FROM reviews)`); n != rows {
		t.Errorf("distinct reviews = %d, want %d", n, rows)
	}
	if n := count(`SELECT count(*) FROM event_queue WHERE event_type = 'ReviewLogged'`); n != rows {
		t.Errorf("ReviewLogged events = %d, want %d", n, rows)
	}
	if n := count(`SELECT count(DISTINCT json_extract(payload, '$.data.review_id')) FROM event_queue WHERE event_type = 'ReviewLogged'`); n != rows {
		t.Errorf("distinct reviews in ReviewLogged = %d, want %d", n, rows)
	}
	if n := count(`SELECT count(*) FROM movies`); n != rows {
		t.Errorf("movies = %d, want %d", n, rows)
	}
	if final := session(); final.Status != "confirmed" || final.Progress.Imported != rows {
		t.Errorf("final session = %+v", final)
	}
}
