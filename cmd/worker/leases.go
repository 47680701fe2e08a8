package main

import (
	"fmt"

	"moviesdiary/internal/config"
)

// checkLeases rejects lease settings the delivery protocol cannot work with, naming the
// variables. How the claim lease relates to the rest:
//
//   - A live worker extends the claim of every row it holds — queued behind busy handlers or
//     running — every third of EVENT_QUEUE_CLAIM_LEASE, so the lease does not depend on
//     EVENT_QUEUE_BATCH_SIZE, EVENT_QUEUE_CONCURRENCY or how long handlers take: it is only how
//     long a dead or stalled worker's rows wait before another worker claims them.
//   - The ledger is what stops a stalled worker that resumes (SIGSTOP, a frozen VM) from running
//     a handler beside the worker that reclaimed its rows. Its claims, taken when a batch is
//     claimed, must outlive the row claims: with EVENT_QUEUE_LEDGER_LEASE below
//     EVENT_QUEUE_CLAIM_LEASE every reclaimed row would find its ledger claims already expired
//     and take them over at once.
//   - Handlers have no timeout of their own; one that runs longer than EVENT_QUEUE_LEDGER_LEASE
//     can be joined by a second delivery of its event (a JetStream redelivery, a re-relay), so
//     keep the ledger lease above the slowest handler.
func checkLeases(cfg config.Config) error {
	if cfg.LedgerLease < cfg.ClaimLease {
		return fmt.Errorf("EVENT_QUEUE_LEDGER_LEASE (%s) must not be shorter than EVENT_QUEUE_CLAIM_LEASE (%s): "+
			"a worker reclaiming a dead or stalled worker's rows would take over its handlers' ledger claims at once",
			cfg.LedgerLease, cfg.ClaimLease)
	}
	return nil
}
