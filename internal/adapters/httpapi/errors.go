package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
)

// httpError is a failure decided by the HTTP layer itself (a body that is not JSON, a bad query
// parameter), already carrying its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(msg string) error { return &httpError{status: http.StatusBadRequest, msg: msg} }

// kindStatus is the one table from a domain error kind to an HTTP status.
var kindStatus = map[domain.Kind]int{
	domain.KindInvalid:      http.StatusBadRequest,
	domain.KindNotFound:     http.StatusNotFound,
	domain.KindConflict:     http.StatusConflict,
	domain.KindForbidden:    http.StatusForbidden,
	domain.KindUnauthorized: http.StatusUnauthorized,
	domain.KindUnsupported:  http.StatusNotImplemented,
}

// fail writes err as the JSON envelope. It is the only place an error becomes a status: an
// httpError keeps its own, a domain error maps by kind, and anything else is a 500 whose detail
// goes to the log with the request id, never to the client.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	if errors.As(err, &he) {
		writeError(w, he.status, he.msg)
		return
	}
	var de *domain.Error
	if errors.As(err, &de) {
		if status, ok := kindStatus[de.Kind]; ok {
			writeError(w, status, de.Message)
			return
		}
	}
	s.log.ErrorContext(r.Context(), "request failed", "error", err,
		"request_id", middleware.GetReqID(r.Context()), "method", r.Method, "path", r.URL.Path)
	writeError(w, http.StatusInternalServerError, "internal server error")
}

// writeError writes the error envelope every failure uses: {"error": "<message>"}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
