-- Counts how often a ledger claim was taken over after its lease expired (its holder died or
-- hung), so the worker can report take-overs and operators can see them per event.
ALTER TABLE processed_events ADD COLUMN takeovers integer NOT NULL DEFAULT 0;
