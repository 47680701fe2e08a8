package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"syscall"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// httpError is a failure decided by the HTTP layer itself (a body that is not JSON, a bad query
// parameter), already carrying its status.
type httpError = endpoint.Error

func badRequest(msg string) error { return endpoint.Fail(http.StatusBadRequest, msg) }

// fail writes err as the JSON envelope. It is the only place an API or federation error becomes
// a status, through endpoint.StatusOf: an httpError keeps its own, a domain error maps by kind,
// and anything else is a 500 whose detail goes to the log with the request id, never to the
// client.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if status, msg, retry, ok := s.retryable(r, err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		writeError(w, status, msg)
		return
	}
	status, msg := endpoint.StatusOf(err)
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "request failed", "error", err,
			"request_id", middleware.GetReqID(r.Context()), "method", r.Method, "path", r.URL.Path)
	}
	writeError(w, status, msg)
}

// StorageFullRetryAfter is the Retry-After of a write refused for want of space, in seconds.
const StorageFullRetryAfter = 60

// retryable recognises the failures a client should retry later, with their status, message and
// Retry-After seconds: a login throttled for its account (429), a request that found what it
// needs busy or down (a *domain.UnavailableError: every password-hashing slot taken, the
// database unreachable; 503), and a write refused because the
// database or the image storage is full (503, logged as a warning: an operator must free space,
// nothing of ours is broken). A bare ENOSPC comes from the server's files, the image storage
// (the database reports its own as a *domain.StorageFullError).
func (s *Server) retryable(r *http.Request, err error) (status int, msg string, retryAfter int, ok bool) {
	var th *auth.ThrottledError
	if errors.As(err, &th) {
		return http.StatusTooManyRequests, th.Error(), th.RetryAfterSeconds(), true
	}
	var un *domain.UnavailableError
	if errors.As(err, &un) {
		s.log.WarnContext(r.Context(), "request refused: unavailable", "what", un.What, "error", err,
			"request_id", middleware.GetReqID(r.Context()), "method", r.Method, "path", r.URL.Path)
		return http.StatusServiceUnavailable, un.Error(), un.RetryAfterSeconds(), true
	}
	storage := ""
	var full *domain.StorageFullError
	switch {
	case errors.As(err, &full):
		storage = full.Storage
	case errors.Is(err, syscall.ENOSPC):
		storage = "image storage"
	default:
		return 0, "", 0, false
	}
	s.log.WarnContext(r.Context(), "write refused: storage full", "storage", storage, "error", err,
		"request_id", middleware.GetReqID(r.Context()), "method", r.Method, "path", r.URL.Path)
	return http.StatusServiceUnavailable, fmt.Sprintf("Service unavailable: the %s is full (no space left on the "+
		"server's disk); nothing was saved, try again later", storage), StorageFullRetryAfter, true
}

// writeError writes the error envelope every failure uses: {"error": "<message>"}.
func writeError(w http.ResponseWriter, status int, msg string) { endpoint.WriteError(w, status, msg) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
