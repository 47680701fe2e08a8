package domain

import "errors"

// ErrPermanent marks a failure that retrying cannot fix (a bad payload, an unknown event type, a
// remote 4xx). Delivery dead-letters it at once instead of spending attempts.
var ErrPermanent = errors.New("permanent")

type permanentError struct{ err error }

func (p permanentError) Error() string        { return p.err.Error() }
func (p permanentError) Unwrap() error        { return p.err }
func (p permanentError) Is(target error) bool { return target == ErrPermanent }

// Permanent wraps err so errors.Is(err, ErrPermanent) holds; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err: err}
}

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }
