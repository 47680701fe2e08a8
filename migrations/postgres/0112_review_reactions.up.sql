-- Likes and boosts (Announce) of local reviews by remote actors, one per (review, kind, actor),
-- with the activity id an Undo names. The counts are what a review's Note reports.
CREATE TABLE review_reactions (
    review_id   text NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('Like', 'Announce')),
    actor_url   text NOT NULL,
    activity_id text NOT NULL,
    created_at  bigint NOT NULL, -- Unix ms
    PRIMARY KEY (review_id, kind, actor_url)
);
CREATE INDEX idx_review_reactions_actor ON review_reactions (actor_url, activity_id);
