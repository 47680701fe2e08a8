-- storage_probe never holds a row: readiness inserts a blob into it and rolls back, to learn
-- whether the database can still grow (SQLITE_FULL: the disk, or max_page_count).
CREATE TABLE storage_probe (b BLOB NOT NULL);
