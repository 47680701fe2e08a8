// Package delivery is the backend-neutral half of event delivery: the handler registry, the
// processed-event ledger protocol and the rules that turn handler results into an outcome (ack,
// defer, retry, dead-letter). A Source (the SQLite queue, a JetStream consumer) supplies
// messages and applies outcomes; the Pump moves messages between the two with bounded
// concurrency.
package delivery
