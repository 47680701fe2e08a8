-- Refresh-token families (OAuth 2.0 Security BCP, refresh token rotation): every token rotated
-- from one login shares its family_id, and a rotated token's row stays, marked rotated_at, until
-- it expires. Presenting a rotated token again means it leaked (the thief or the owner used it
-- first), so the whole family is revoked. Rows from before this migration are each their own
-- family (family_id NULL stands for the row's token_hash).
ALTER TABLE refresh_sessions ADD COLUMN family_id text;
ALTER TABLE refresh_sessions ADD COLUMN rotated_at bigint; -- Unix ms; NULL while the token is live
CREATE INDEX idx_refresh_sessions_family ON refresh_sessions (family_id) WHERE family_id IS NOT NULL;
