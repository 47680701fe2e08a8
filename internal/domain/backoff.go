package domain

import "time"

// Backoff bounds shared by the SQLite queue and JetStream naks, so both backends retry on the
// same schedule and give up after the same number of deliveries.
const (
	BackoffBase = 5 * time.Second
	BackoffMax  = 300 * time.Second
)

// RetryBackoff is the delay before the next delivery after the n-th failed one (n ≥ 1):
// 5 s, 10 s, 20 s, … doubling, capped at 300 s.
func RetryBackoff(n int) time.Duration {
	return ScaledBackoff(BackoffBase, n)
}

// ScaledBackoff is RetryBackoff with another base (tests and benchmarks shrink it); the cap stays
// at 60 × base, as 300 s is to 5 s.
func ScaledBackoff(base time.Duration, n int) time.Duration {
	if n < 1 {
		n = 1
	}
	limit := base * (BackoffMax / BackoffBase)
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
