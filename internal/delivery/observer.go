package delivery

import "time"

// Handler outcomes as an Observer sees them, one per handler per delivery.
const (
	OutcomeDone         = "done"          // the handler succeeded
	OutcomeSkipped      = "skipped"       // the ledger says it already succeeded
	OutcomeDeferred     = "deferred"      // its ledger claim is held by another delivery
	OutcomeNacked       = "nacked"        // it failed transiently; the event will be retried
	OutcomeDeadLettered = "dead_lettered" // it failed permanently, or on the last attempt
	OutcomeInterrupted  = "interrupted"   // a shutdown cut it short; the event goes back unspent
)

// NoHandler is the handler label of a dead letter no handler caused: an undecodable payload or
// an unknown event type, a delivery abandoned by dead workers MaxAttempts times.
const NoHandler = "none"

// Observer receives what the engine sees, for metrics. Calls must be cheap and safe for
// concurrent use.
type Observer interface {
	// HandlerOutcome reports one handler's outcome in one delivery; took is zero unless it ran.
	HandlerOutcome(handler, outcome string, took time.Duration)
	// LedgerTakeOver reports a ledger claim taken over after its lease expired.
	LedgerTakeOver(handler string)
}

// nopObserver is the Observer when none is configured.
type nopObserver struct{}

func (nopObserver) HandlerOutcome(string, string, time.Duration) {}
func (nopObserver) LedgerTakeOver(string)                        {}
