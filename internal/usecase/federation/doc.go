// Package federation is moviesdiary's federation policy: which inbound activities an inbox
// accepts and what each one does, which local events become activities and to whom they are
// sent, the follow-time backfill and outbox import, the settings that gate what federates
// (failing closed) and the blocks that refuse instances and actors.
//
// It speaks in domain types and a small activity model (Activity, Inbound, Note); the
// ActivityPub adapter renders and parses the wire format, signs and sends the requests, and
// implements the outward port Remote. The stores are small ports, each named for what it
// provides; the SQLite store implements them all.
//
// Every outward id is deterministic: an activity's id derives from the event that causes it
// (ActivityID) and each delivery's outbox id from the activity id and the inbox (DeliveryID), so a
// replayed event writes the same rows again, which the outbox ignores.
package federation
