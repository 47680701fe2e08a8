package endpoint_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
)

// TestStatusOf: each domain kind maps to its status with its own message, not the chain that
// wraps it; an HTTP-layer *Error keeps its status; anything else is a 500 with the generic
// message.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("load user 42 from /var/db/secret.db: %w", err) }
	for _, c := range []struct {
		err    error
		status int
		msg    string
	}{
		{wrap(domain.Invalid("rating must be 1-5")), 400, "rating must be 1-5"},
		{wrap(domain.NotFound("Entity not found: user")), 404, "Entity not found: user"},
		{wrap(domain.Errorf(domain.KindConflict, "already exists")), 409, "already exists"},
		{wrap(domain.Forbidden("not yours")), 403, "not yours"},
		{wrap(domain.Errorf(domain.KindUnauthorized, "bad token")), 401, "bad token"},
		{wrap(domain.Errorf(domain.KindUnsupported, "no federation")), 501, "no federation"},
		{wrap(endpoint.Fail(http.StatusRequestEntityTooLarge, "body over 1 MiB")), 413, "body over 1 MiB"},
		{wrap(errors.New("disk I/O error")), 500, endpoint.InternalMessage},
		{wrap(domain.Errorf(domain.KindInternal, "constraint failed on table users")), 500, endpoint.InternalMessage},
		{wrap(domain.Permanent(errors.New("remote answered 410"))), 500, endpoint.InternalMessage},
		{wrap(&domain.UnavailableError{What: "database", Err: errors.New("dial unix /run/postgresql: user=owner")}), 503,
			"Service unavailable: the database is busy or down; try again later"},
	} {
		status, msg := endpoint.StatusOf(c.err)
		if status != c.status || msg != c.msg {
			t.Errorf("StatusOf(%v) = %d %q, want %d %q", c.err, status, msg, c.status, c.msg)
		}
	}
}

// TestWriteError: the envelope is {"error": msg} as JSON with the status.
func TestWriteError(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	endpoint.WriteError(w, http.StatusTeapot, "short and stout")
	if w.Code != http.StatusTeapot || w.Header().Get("Content-Type") != "application/json" ||
		w.Body.String() != `{"error":"short and stout"}`+"\n" {
		t.Errorf("wrote %d %s %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
}
