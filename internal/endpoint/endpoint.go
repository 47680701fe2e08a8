// Package endpoint is what the HTTP adapters' routes share: the Route shape (a handler that
// returns its failure instead of writing it) and the one translation of a failure into a
// status and a message safe to show. The REST API (adapters/httpapi) and the federation routes
// (adapters/activitypub) both answer through it; it sits outside internal/adapters because an
// adapter imports no other adapter.
package endpoint

import (
	"encoding/json"
	"errors"
	"net/http"

	"moviesdiary/internal/domain"
)

// Func is a handler that returns its failure; the router writes it with StatusOf.
type Func func(w http.ResponseWriter, r *http.Request) error

// Route is one method and path served by another adapter (the federation routes): mounted on
// the router and listed in the OpenAPI document like the API's own.
type Route struct {
	Method, Pattern, Summary string
	Handle                   Func
	Status                   int   // Status is the success status.
	Errors                   []int // Errors are the documented failure statuses besides 500.
}

// Error is a failure decided by the HTTP layer itself (a body that is not JSON, one too large,
// a bad signature header), already carrying its status and its message for the client.
type Error struct {
	Status  int
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Fail returns an *Error of status with msg.
func Fail(status int, msg string) error { return &Error{Status: status, Message: msg} }

// kindStatus is the one table from a domain error kind to an HTTP status.
var kindStatus = map[domain.Kind]int{
	domain.KindInvalid:      http.StatusBadRequest,
	domain.KindNotFound:     http.StatusNotFound,
	domain.KindConflict:     http.StatusConflict,
	domain.KindForbidden:    http.StatusForbidden,
	domain.KindUnauthorized: http.StatusUnauthorized,
	domain.KindUnsupported:  http.StatusNotImplemented,
}

// InternalMessage is all a client is told of a failure of ours.
const InternalMessage = "internal server error"

// StatusOf is the status and client message of err: an *Error keeps its own, a domain error maps
// by kind with its own message (not the chain that wraps it), and anything else is a 500 with
// InternalMessage, whose detail the caller logs.
func StatusOf(err error) (status int, msg string) {
	var he *Error
	if errors.As(err, &he) {
		return he.Status, he.Message
	}
	var un *domain.UnavailableError
	if errors.As(err, &un) {
		return http.StatusServiceUnavailable, un.Error()
	}
	var de *domain.Error
	if errors.As(err, &de) {
		if status, ok := kindStatus[de.Kind]; ok {
			return status, de.Message
		}
	}
	return http.StatusInternalServerError, InternalMessage
}

// WriteError writes the error envelope every failure uses: {"error": "<message>"}.
func WriteError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
