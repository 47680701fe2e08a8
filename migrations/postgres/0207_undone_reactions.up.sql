-- The reactions remote actors have undone, by activity id: a Like or boost that is processed after
-- its own Undo (the worker runs inbox activities concurrently, and a server may send it again)
-- must not be recorded. Pruned with the inbox activities.
CREATE TABLE undone_reactions (
    actor_url   text NOT NULL,
    activity_id text NOT NULL,
    undone_at   bigint NOT NULL, -- Unix ms
    PRIMARY KEY (actor_url, activity_id)
);
CREATE INDEX idx_undone_reactions_undone_at ON undone_reactions (undone_at);
