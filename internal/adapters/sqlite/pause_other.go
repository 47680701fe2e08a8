//go:build !linux

package sqlite

import "time"

// pause sleeps for at least d; outside Linux, Go's timer resolution is what there is.
func pause(d time.Duration) { time.Sleep(d) }
