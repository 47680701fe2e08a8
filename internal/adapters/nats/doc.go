// Package nats is the NATS half of EVENT_BUS_BACKEND=nats. The worker's Relay claims outbox rows
// and publishes them (JetStream with a PubAck, or core NATS fire-and-forget); a Consumer (a
// durable JetStream pull consumer) or a CoreConsumer (a core queue-group subscription) is a
// delivery.Source, so the backend-neutral Pump, Engine and processed-event ledger handle the
// events exactly as the db backend does. Setup creates the stream and consumer and reconciles an
// existing pair with what this build needs. The server never imports this package.
package nats
