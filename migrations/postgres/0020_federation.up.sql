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
--   domain_blocks: instances whose traffic is refused both ways (domains compare without case).
CREATE TABLE actor_keys (
    owner_id        text PRIMARY KEY,
    private_key_pem text NOT NULL,
    public_key_pem  text NOT NULL,
    created_at      bigint NOT NULL -- Unix ms
);

CREATE TABLE remote_actors (
    url          text PRIMARY KEY,
    inbox        text NOT NULL,
    shared_inbox text,
    outbox       text,
    handle       text,
    display_name text,
    key_id       text NOT NULL,
    public_key   text NOT NULL,
    fetched_at   bigint NOT NULL -- Unix ms
);
CREATE INDEX idx_remote_actors_key ON remote_actors (key_id);

CREATE TABLE inbox_activities (
    activity_id text PRIMARY KEY,
    actor_url   text NOT NULL,
    received_at bigint NOT NULL -- Unix ms
);

CREATE TABLE ap_activities (
    id         text PRIMARY KEY,
    actor_id   text NOT NULL,
    type       text NOT NULL,
    object_id  text,
    activity   text NOT NULL, -- the JSON document
    created_at bigint NOT NULL -- Unix ms
);
CREATE INDEX idx_ap_activities_object ON ap_activities (object_id, type);

CREATE TABLE ap_relations (
    type        text NOT NULL CHECK (type IN ('Follow', 'Block')),
    actor       text NOT NULL,
    object      text NOT NULL,
    activity_id text NOT NULL,
    PRIMARY KEY (type, actor, object)
);

CREATE TABLE domain_blocks (
    domain     citext PRIMARY KEY,
    reason     text,
    blocked_at text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
