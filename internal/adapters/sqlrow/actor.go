package sqlrow

import (
	"database/sql"

	"moviesdiary/internal/domain"
)

// Actor is the other party of a follow or block, with the user's names when it is local.
type Actor struct {
	Identity
	Username    sql.Null[string] `db:"username"`
	DisplayName sql.Null[string] `db:"display_name"`
}

// Actor maps the row to its domain value.
func (r Actor) Actor() domain.Actor {
	return domain.Actor{Identity: r.Identity.Identity(), Username: r.Username.V, DisplayName: Ptr(r.DisplayName)}
}

// Identity is a (kind, id) pair of a follows or blocks row, selected as kind and id.
type Identity struct {
	Kind string `db:"kind"`
	ID   string `db:"id"`
}

// Identity maps the row to its domain value.
func (r Identity) Identity() domain.SocialIdentity { return domain.SocialIdentity(r) }
