package postgres

// notifyChannel is the LISTEN/NOTIFY channel of the outbox: a trigger on event_queue (migration
// 0101) notifies it for every statement that inserts, and the queues' notifier listens on it.
// PostgreSQL delivers a notification at the commit, once per transaction, and never for a
// rollback. Every insert goes through outbox.Insert, the only code that inserts into event_queue.
const notifyChannel = "moviesdiary_outbox"
