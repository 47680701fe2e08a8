-- The reactions remote actors have undone, by activity id: a Like or boost that is processed after
-- its own Undo (the worker runs inbox activities concurrently, and a server may send it again)
-- must not be recorded. Pruned with the inbox activities.
CREATE TABLE undone_reactions (
    actor_url   TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    undone_at   INTEGER NOT NULL, -- Unix ms
    PRIMARY KEY (actor_url, activity_id)
) WITHOUT ROWID;
CREATE INDEX idx_undone_reactions_undone_at ON undone_reactions (undone_at);
