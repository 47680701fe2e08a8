-- Federation (ActivityPub) state.
--   actor_keys: one RSA key pair per local actor (a user, or the instance actor that signs
--     fetches made on nobody's behalf), PEM text. Made with the user; a user from before this
--     migration gets one the first time it is needed.
--   remote_actors: the actor documents of other servers we talk to, cached: inboxes, outbox,
--     public key (key_id is what a Signature header names).
--   inbox_activities: the id of every inbound activity accepted by an inbox; a repeat of an id
--     is answered 202 and not processed again.
--   ap_activities: every activity we published, so its id can be dereferenced.
--   ap_relations: the id of the latest Follow or Block between two actors (either direction),
--     which an Accept, Reject or Undo must reference after the follow row itself is gone.
--   domain_blocks: instances whose traffic is refused both ways.
CREATE TABLE actor_keys (
    owner_id        TEXT PRIMARY KEY,
    private_key_pem TEXT NOT NULL,
    public_key_pem  TEXT NOT NULL,
    created_at      INTEGER NOT NULL -- Unix ms
);

CREATE TABLE remote_actors (
    url          TEXT PRIMARY KEY,
    inbox        TEXT NOT NULL,
    shared_inbox TEXT,
    outbox       TEXT,
    handle       TEXT,
    display_name TEXT,
    key_id       TEXT NOT NULL,
    public_key   TEXT NOT NULL,
    fetched_at   INTEGER NOT NULL -- Unix ms
);
CREATE INDEX idx_remote_actors_key ON remote_actors (key_id);

CREATE TABLE inbox_activities (
    activity_id TEXT PRIMARY KEY,
    actor_url   TEXT NOT NULL,
    received_at INTEGER NOT NULL -- Unix ms
) WITHOUT ROWID;

CREATE TABLE ap_activities (
    id         TEXT PRIMARY KEY,
    actor_id   TEXT NOT NULL,
    type       TEXT NOT NULL,
    object_id  TEXT,
    activity   TEXT NOT NULL, -- the JSON document
    created_at INTEGER NOT NULL -- Unix ms
);
CREATE INDEX idx_ap_activities_object ON ap_activities (object_id, type);

CREATE TABLE ap_relations (
    type        TEXT NOT NULL CHECK (type IN ('Follow', 'Block')),
    actor       TEXT NOT NULL,
    object      TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    PRIMARY KEY (type, actor, object)
) WITHOUT ROWID;

CREATE TABLE domain_blocks (
    domain     TEXT PRIMARY KEY COLLATE NOCASE,
    reason     TEXT,
    blocked_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
