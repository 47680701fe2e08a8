-- A user may make their wrap-ups public: readable by anyone at /u/{id}/wrapup/{year}. Off by
-- default; a private wrap-up does not exist for anyone but its owner and the admins
-- (docs/adr/0003-public-wrapups.md). A boolean, like the other settings here (SQLite's 0/1).
ALTER TABLE user_settings ADD COLUMN public_wrapups boolean NOT NULL DEFAULT false;
