-- Federation deliveries wait here, handed off by the FederationDeliveryRequested handler, so that
-- a remote server's weather (outages of days, black holes, 429s) costs the outbox nothing: the
-- worker's delivery lane sends them with its own concurrency, per-host limits, a 48-hour retry
-- window, and per-host health (docs/adr/0005-federation-delivery.md).
-- status: pending (due at next_attempt_at), sending (claimed until claimed_until), parked (its
-- host is unavailable: waits, spending nothing, until the host is seen alive), done, dead.
-- seq orders an inbox's activities about one object: the publication's time, then the handoff.
CREATE TABLE federation_deliveries (
    id               INTEGER PRIMARY KEY,
    delivery_id      TEXT NOT NULL UNIQUE,  -- the FederationDeliveryRequested event id
    host             TEXT NOT NULL,
    inbox            TEXT NOT NULL,
    object_key       TEXT NOT NULL,         -- what the activity is about ('' when nothing)
    seq              INTEGER NOT NULL,      -- Unix ms of the publication
    activity         TEXT NOT NULL,
    signing_actor_id TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending',
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,      -- Unix ms
    claimed_until    INTEGER,               -- Unix ms; with status sending
    first_failure_at INTEGER,               -- Unix ms of the first failed attempt
    last_error       TEXT,
    created_at       INTEGER NOT NULL,
    finished_at      INTEGER                -- Unix ms; done or dead
);
CREATE INDEX idx_federation_deliveries_due ON federation_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX idx_federation_deliveries_sending ON federation_deliveries (host) WHERE status = 'sending';
CREATE INDEX idx_federation_deliveries_host ON federation_deliveries (host, status);
CREATE INDEX idx_federation_deliveries_object ON federation_deliveries (inbox, object_key, seq, id)
    WHERE status IN ('pending', 'sending', 'parked');
CREATE INDEX idx_federation_deliveries_finished ON federation_deliveries (finished_at) WHERE finished_at IS NOT NULL;

-- The health of each remote host the lane has delivered to. state: available, open (failing:
-- not attempted until open_until, then one probe at a time), unavailable (failing since
-- failing_since for days: its deliveries are parked until it is seen alive).
CREATE TABLE federation_hosts (
    host            TEXT PRIMARY KEY,
    state           TEXT NOT NULL DEFAULT 'available',
    failures        INTEGER NOT NULL DEFAULT 0,  -- consecutive
    failing_since   INTEGER,                     -- Unix ms of the first of them
    open_until      INTEGER,                     -- Unix ms
    next_probe_at   INTEGER,                     -- Unix ms; unavailable hosts
    last_success_at INTEGER,
    last_failure_at INTEGER,
    last_error      TEXT
);
