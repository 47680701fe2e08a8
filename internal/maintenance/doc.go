// Package maintenance holds the periodic jobs that keep the database small and the derived data
// fresh: ledger pruning, the done-outbox purge, the wrap-up reaper, stale-enrichment requests and
// refresh-session pruning. Each job is one file with a RunOnce that runs each query under its own
// timeout; a Runner runs jobs every interval, under a lease when only one process at a time may
// run them. The ports each job needs are declared beside it and satisfied by the SQLite store.
package maintenance
