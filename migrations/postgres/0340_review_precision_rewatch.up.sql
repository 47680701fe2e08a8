-- rating_precise keeps a rating at the precision it came with when the 1–5 integer rating
-- rounds it (Letterboxd's half stars: 4.5 is stored as rating 5 and rating_precise 4.5); NULL
-- when rating says it all. rewatch marks a viewing of a film seen before (Letterboxd's Rewatch
-- column). Issue 36.
ALTER TABLE reviews ADD COLUMN rating_precise double precision CHECK (rating_precise IS NULL OR (rating_precise >= 0.5 AND rating_precise <= 5));
ALTER TABLE reviews ADD COLUMN rewatch boolean NOT NULL DEFAULT false;
