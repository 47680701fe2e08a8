package domain

import "time"

// Pause is the growing pause between tries of a call that failed for a reason expected to pass
// soon: a lock another connection holds, a database or broker still starting, a connection
// being re-established. The first pause is Min; each later one is the previous times Growth
// (doubling when Growth is zero), never more than Max. It is not the delivery backoff of a failed
// handler, which is RetryBackoff. The caller waits the pauses itself (a timer, a nanosleep, a
// test's fake), so Pause only does the arithmetic.
type Pause struct {
	Min, Max time.Duration
	// Growth multiplies each pause into the next; zero doubles it.
	Growth float64

	next time.Duration
}

// Next returns the pause before the next try and grows the one after it.
func (p *Pause) Next() time.Duration {
	d := min(max(p.next, p.Min), p.Max)
	if p.Growth == 0 {
		p.next = min(2*d, p.Max)
	} else {
		p.next = min(time.Duration(float64(d)*p.Growth), p.Max)
	}
	return d
}

// Reset starts the pauses again from Min, after a try succeeded.
func (p *Pause) Reset() { p.next = 0 }
