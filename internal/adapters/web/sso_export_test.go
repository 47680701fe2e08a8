package web

import "time"

// SignOnAttempt is a sign-in cookie's content, for the tests that forge or alter one.
type SignOnAttempt = signOnAttempt

// Seal and Open expose the sign-in cookie's sealing to the tests.
func (so *SignOn) Seal(a SignOnAttempt) string { return so.seal(a) }

func (so *SignOn) Open(v string) (SignOnAttempt, bool) { return so.open(v, time.Now()) }

// SignOnCookie is the sign-in cookie's name over plain HTTP.
const SignOnCookie = signOnCookie
