// Package activitypub is moviesdiary's ActivityPub adapter: actor keys and HTTP Signatures
// (draft-cavage, rsa-sha256), the wire shapes of actors, Notes, activities and collections, an
// outbound HTTP client with an SSRF guard, the cache of remote actors and their keys, WebFinger
// and NodeInfo, the federation HTTP routes (answered through the API's one error mapping,
// internal/endpoint) and the worker's handlers.
//
// What federation does is decided in internal/usecase/federation: the routes and handlers here
// read the wire format into the use case's model, call it, and render what it decides. This
// package is the use case's Remote (fetch an actor, deliver an activity, read an outbox page)
// and its Encoder (an Activity as the JSON we publish).
package activitypub
