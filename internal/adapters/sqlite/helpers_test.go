package sqlite

import (
	"bytes"
	"database/sql"
	"sync"
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
