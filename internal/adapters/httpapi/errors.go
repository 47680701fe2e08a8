package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5/middleware"

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

// retryable recognises the failures a client should retry later, with their status, message and
// Retry-After seconds: a login throttled for its account (429).
func (s *Server) retryable(_ *http.Request, err error) (status int, msg string, retryAfter int, ok bool) {
	var th *auth.ThrottledError
	if errors.As(err, &th) {
		return http.StatusTooManyRequests, th.Error(), th.RetryAfterSeconds(), true
	}
	return 0, "", 0, false
}

// writeError writes the error envelope every failure uses: {"error": "<message>"}.
func writeError(w http.ResponseWriter, status int, msg string) { endpoint.WriteError(w, status, msg) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
