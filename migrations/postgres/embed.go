// Package postgres embeds the PostgreSQL store's numbered golang-migrate SQL files. They mirror
// the SQLite ones in the directory above (same numbers, tables and columns, one file per SQLite
// file), in PostgreSQL's types: times keep the SQLite encoding the Go code reads (RFC 3339 UTC
// text with milliseconds in the domain tables, Unix milliseconds as bigint in the outbox, the
// ledger and the newer tables), flags are boolean, JSON documents stay text. A file whose SQLite
// twin only repairs SQLite-era data says why it does nothing here.
package postgres

import "embed"

// FS holds every *.up.sql file, named NNNN_title.up.sql.
//
//go:embed *.sql
var FS embed.FS
