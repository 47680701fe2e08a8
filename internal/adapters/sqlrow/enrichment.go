package sqlrow

import (
	"database/sql"

	"moviesdiary/internal/usecase/enrichment"
)

// Enrichment is when an entity's profile was written and when TMDb last said it does not
// know the entity.
type Enrichment struct {
	EnrichedAt sql.Null[string] `db:"enriched_at"`
	MissingAt  sql.Null[string] `db:"tmdb_missing_at"`
}

// State maps the row to its domain value.
func (r Enrichment) State() (enrichment.State, error) {
	enriched, err := ParseOptionalTime(Ptr(r.EnrichedAt))
	if err != nil {
		return enrichment.State{}, err
	}
	missing, err := ParseOptionalTime(Ptr(r.MissingAt))
	if err != nil {
		return enrichment.State{}, err
	}
	return enrichment.State{EnrichedAt: enriched, MissingAt: missing}, nil
}
