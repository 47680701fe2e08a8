-- The federation pruner (internal/maintenance, FederationPruner) deletes by age: inbox ids past
-- the dedup window and superseded published activities past their retention.
CREATE INDEX IF NOT EXISTS idx_inbox_activities_received ON inbox_activities (received_at);
CREATE INDEX IF NOT EXISTS idx_ap_activities_created ON ap_activities (created_at);
