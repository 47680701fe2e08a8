// Package activitypub is moviesdiary's ActivityPub adapter: actor keys and HTTP Signatures
// (draft-cavage, rsa-sha256), the wire shapes of actors, Notes and activities, an outbound HTTP
// client with an SSRF guard, the federation HTTP routes (WebFinger, NodeInfo, actors, inboxes,
// collections, objects) and the worker's handlers that turn domain events into activities and
// deliver them.
//
// Every federation effect goes through the outbox. An outbound activity is built by a handler
// from a domain event; its id derives from the event id (ActivityID), and its deliveries are
// FederationDeliveryRequested events, one per distinct inbox, whose own ids derive from the
// activity id and the inbox (DeliveryID). A replayed event therefore writes the same rows again,
// which the outbox ignores, and a redelivered delivery POSTs the same activity id. An inbound
// activity is verified, stored once by its id and processed by a handler, asynchronously.
package activitypub
