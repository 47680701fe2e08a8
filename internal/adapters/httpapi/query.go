package httpapi

import "moviesdiary/internal/domain"

// queryParam documents one query parameter a route reads, for the OpenAPI document. A test
// checks each route declares exactly the parameters its handler reads.
type queryParam struct {
	name, description string
	// schema is its JSON Schema (type, enum, minimum, maximum, format, default).
	schema map[string]any
}

// pageQuery are limit (1..100, default def) and offset, which page() reads.
func pageQuery(def int) []queryParam {
	return []queryParam{
		{name: "limit", description: "page size",
			schema: map[string]any{"type": "integer", "minimum": 1, "maximum": domain.MaxLimit, "default": def}},
		{name: "offset", description: "items to skip",
			schema: map[string]any{"type": "integer", "minimum": 0, "default": 0}},
	}
}

func uuidQuery(name, description string) queryParam {
	return queryParam{name: name, description: description, schema: map[string]any{"type": "string", "format": "uuid"}}
}

func textQuery(name, description string) queryParam {
	return queryParam{name: name, description: description, schema: map[string]any{"type": "string"}}
}

func enumQuery(name, description string, values ...string) queryParam {
	return queryParam{name: name, description: description, schema: map[string]any{"type": "string", "enum": values}}
}

// withPage is a route's own parameters after limit and offset.
func withPage(def int, more ...queryParam) []queryParam { return append(pageQuery(def), more...) }

var (
	// diaryQuery is what GET /api/v1/diary reads.
	diaryQuery = withPage(5,
		enumQuery("sort_by", "order; anything else is newest viewing first", "date_desc", "date_asc", "asc", "rating_desc", "rating_asc"),
		uuidQuery("user_id", "one user's reviews (local and remote); without it every local review"),
		uuidQuery("movie_id", "one movie's reviews"))
	// feedQuery is what GET /api/v1/activity-feed reads.
	feedQuery = withPage(20,
		enumQuery("sort_by", "order; anything else is newest viewing first", "date", "date_asc", "rating", "rating_desc", "rating_asc"))
	// moviesQuery is what GET /api/v1/movies reads.
	moviesQuery = withPage(5, textQuery("search", "title substring"), textQuery("genre", "genre name"),
		textQuery("language", "original language (ISO 639-1)"))
	// searchQuery is what GET /api/v1/search reads.
	searchQuery = withPage(5, textQuery("q", "full-text query over movies and people"), textQuery("genre", "genre name"),
		queryParam{name: "year", description: "release year",
			schema: map[string]any{"type": "integer", "minimum": 0, "maximum": domain.MaxReleaseYear}},
		uuidQuery("person_id", "movies with this person"), textQuery("department", "people of this department"),
		textQuery("language", "original language (ISO 639-1)"))
	// profileQuery is what GET /api/v1/users/{id} reads.
	profileQuery = withPage(5, enumQuery("view", "which view the profile carries (default recent)",
		"recent", "ratings", "history", "trends"))
	// exportQuery is what GET /api/v1/diary/export reads.
	exportQuery = []queryParam{{name: "format", description: "csv (the default, every field), json, or letterboxd (the columns Letterboxd's importer reads)",
		schema: map[string]any{"type": "string", "enum": []string{"csv", "json", "letterboxd"}, "default": "csv"}}}
)
