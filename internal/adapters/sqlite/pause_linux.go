package sqlite

import (
	"syscall"
	"time"
)

// pause blocks the calling thread for about d (plus the kernel's 50 µs timer slack).
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
