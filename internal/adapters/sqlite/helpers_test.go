package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

func openRaw(path string) (*sql.DB, error) { return sql.Open("sqlite3", dsn(path, "immediate")) }

// lockedBuffer collects a child process's output from two pipes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logRecords is a logger whose JSON records a test reads back.
type logRecords struct{ buf lockedBuffer }

func (l *logRecords) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(&l.buf, nil)) }

// with returns the records whose message is msg, each as its attributes' text.
func (l *logRecords) with(t testing.TB, msg string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] != msg {
			continue
		}
		m := map[string]string{}
		for k, v := range rec {
			m[k] = fmt.Sprint(v)
		}
		out = append(out, m)
	}
	return out
}
