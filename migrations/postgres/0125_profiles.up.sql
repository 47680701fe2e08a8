-- Profiles: besides display_name and bio (in users since 0001), a user has an avatar and a banner
-- (object-storage keys: the stored original until the worker's conversion swaps in its WebP), an
-- alias (also_known_as, the actor URL of the account they moved to or from) and at most four
-- name/value fields, kept as a JSON array of {"name", "value"} in their order.
ALTER TABLE users ADD COLUMN avatar_key text;
ALTER TABLE users ADD COLUMN banner_key text;
ALTER TABLE users ADD COLUMN also_known_as text;
ALTER TABLE users ADD COLUMN profile_fields text NOT NULL DEFAULT '[]';
CREATE INDEX idx_users_avatar_key ON users (avatar_key) WHERE avatar_key IS NOT NULL;
CREATE INDEX idx_users_banner_key ON users (banner_key) WHERE banner_key IS NOT NULL;
