package postgres_test

import (
	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/maintenance"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/goal"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/wrapup"
)

// The ports the enrichment, catalog, poster, search, wrap-up, goal and settings repositories
// complete, checked at compile time as the SQLite store's are.
var (
	_ enrichment.MovieStore   = (*postgres.Store)(nil)
	_ enrichment.PersonStore  = (*postgres.Store)(nil)
	_ maintenance.Enrichments = (*postgres.Store)(nil)
	_ movie.Catalog           = (*postgres.Store)(nil)
	_ poster.Store            = (*postgres.Store)(nil)
	_ image.Refs              = (*postgres.Store)(nil)
	_ search.Index            = (*postgres.Store)(nil)
	_ search.Reader           = (*postgres.Store)(nil)
	_ search.Requests         = (*postgres.Store)(nil)
	_ wrapup.Store            = (*postgres.Store)(nil)
	_ wrapup.GenerationStore  = (*postgres.Store)(nil)
	_ wrapup.VisibilityStore  = (*postgres.Store)(nil)
	_ maintenance.WrapUps     = (*postgres.Store)(nil)
	_ goal.Store              = (*postgres.Store)(nil)
)
