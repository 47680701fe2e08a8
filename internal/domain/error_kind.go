package domain

import (
	"errors"
	"fmt"
)

// Kind classifies a failure the way a caller must react to it; the HTTP adapter maps each kind to
// one status in a single place.
type Kind int

// The kinds of failure a use case reports.
const (
	// KindInternal is a failure of ours (a database error); the caller sees no detail.
	KindInternal Kind = iota
	// KindInvalid is a request that breaks a rule (a rating of 6, a malformed date).
	KindInvalid
	// KindNotFound is an unknown id.
	KindNotFound
	// KindConflict is a request that contradicts the current state.
	KindConflict
	// KindForbidden is an authenticated caller acting on what is not theirs.
	KindForbidden
	// KindUnauthorized is a missing, bad or expired credential.
	KindUnauthorized
	// KindUnsupported is a request this build cannot serve yet (a remote follow without federation).
	KindUnsupported
)

// Error is a failure with a kind and a message safe to show the caller.
type Error struct {
	Kind    Kind
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Is matches the kind's sentinel (ErrNotFound, ErrInvalid, ...), so errors.Is(err, ErrNotFound)
// holds for every not-found error whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Kind == e.Kind
}

// Sentinels for errors.Is; each matches every Error of its kind.
var (
	ErrInvalid      = &Error{Kind: KindInvalid}
	ErrNotFound     = &Error{Kind: KindNotFound}
	ErrConflict     = &Error{Kind: KindConflict}
	ErrForbidden    = &Error{Kind: KindForbidden}
	ErrUnauthorized = &Error{Kind: KindUnauthorized}
	ErrUnsupported  = &Error{Kind: KindUnsupported}
)

// Errorf returns an Error of kind k with a formatted message.
func Errorf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a KindInvalid error.
func Invalid(format string, args ...any) error { return Errorf(KindInvalid, format, args...) }

// NotFound returns a KindNotFound error.
func NotFound(format string, args ...any) error { return Errorf(KindNotFound, format, args...) }

// Forbidden returns a KindForbidden error.
func Forbidden(format string, args ...any) error { return Errorf(KindForbidden, format, args...) }

// KindOf returns the kind of the first Error in err's chain, KindInternal when there is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}
