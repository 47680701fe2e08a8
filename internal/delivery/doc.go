// Package delivery is the backend-neutral half of event delivery: the handler registry, the
// processed-event ledger protocol and the rules that turn handler results into an outcome (ack,
// defer, retry, dead-letter). A Source (the SQLite queue, a JetStream consumer) supplies
// messages and applies outcomes; the Pump is the one claim → dispatch → settle loop that moves
// them, to the Engine's handlers with bounded concurrency or to a Dispatcher (the NATS relay).
// Every source passes the conformance suite in deliverytest.
package delivery
