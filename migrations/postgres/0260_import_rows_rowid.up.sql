-- The SQLite twin of this version turns import_rows from a WITHOUT ROWID table into a rowid one
-- (issue 33 §3). PostgreSQL keeps every table's rows in a heap apart from its indexes and moves
-- large values out of line (TOAST) already, so nothing changes here; the version exists so that
-- both stores stay at the same one.
COMMENT ON TABLE import_rows IS 'rows of uploaded import files; cells bounded to 64 KiB, rows to 256 KiB';
