// Package migrations embeds the numbered golang-migrate SQL files both binaries apply at start-up.
package migrations

import "embed"

// FS holds every *.up.sql file, named NNNN_title.up.sql.
//
//go:embed *.sql
var FS embed.FS
