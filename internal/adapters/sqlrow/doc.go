// Package sqlrow holds the rows of the moviesdiary schema as both SQL stores (the sqlite and
// postgres adapters) read them, and their mapping to domain values. The PostgreSQL domain tables
// keep SQLite's encodings (migrations/postgres/embed.go), so a row scans and binds the same on
// both; each adapter keeps its own SQL text, where placeholders and dialects differ.
//
// Row structs are what sqlx scans a query into, column by name (the db tags; a query selects
// with aliases where a column's name differs), and what NamedExec binds. The domain types carry
// no tags, and each row converts to its domain type in a small method. A nullable column is a
// sql.Null, turned into the domain's pointer by Ptr (and back by NullOf): sqlx allocates every
// nil pointer field of a row before the scan, which allocates another, while a sql.Null scans
// in place.
package sqlrow
