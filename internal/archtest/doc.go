// Package archtest holds the repository-wide rules that no single package can check on itself:
// which packages may import which (dependencies point inward, use cases never see a database
// handle), that the server's build never links NATS, and that only outbox.Insert writes rows into
// event_queue. It has no code of its own: its tests read the module's build graph (go list) and
// watch what the SQLite and PostgreSQL stores execute.
package archtest
