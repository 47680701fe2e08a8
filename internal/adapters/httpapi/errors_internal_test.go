package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestImageStorageFullIs503: a write of an image that fails with ENOSPC (a real one: /dev/full
// refuses every write so) answers 503 with Retry-After and a message naming the image storage.
func TestImageStorageFullIs503(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Fatalf("the test writes to Linux's /dev/full: %v", err)
	}
	werr := os.WriteFile("/dev/full", []byte("an avatar"), 0o600)
	if werr == nil {
		t.Fatal("/dev/full took a write")
	}
	s := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	w := httptest.NewRecorder()
	s.fail(w, httptest.NewRequest("PUT", "/api/v1/profile", nil), fmt.Errorf("store avatar: %w", werr))
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || !strings.Contains(body["error"], "image storage is full") {
		t.Errorf("ENOSPC: %d Retry-After %q %v, want 503 with Retry-After naming the image storage",
			w.Code, w.Header().Get("Retry-After"), body)
	}
}
