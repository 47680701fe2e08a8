-- storage_probe never holds a row: readiness inserts a blob into it and rolls back, to learn
-- whether the database can still grow (a full disk).
CREATE TABLE storage_probe (b bytea NOT NULL);
