package httpapi

// queryParam documents one query parameter a route reads, for the OpenAPI document.
type queryParam struct {
	name, description string
	// schema is its JSON Schema (type, enum, minimum, maximum, format, default).
	schema   map[string]any
	required bool
}

// exportQuery is what GET /api/v1/diary/export reads.
var exportQuery = []queryParam{{name: "format", description: "csv (the default) or json",
	schema: map[string]any{"type": "string", "enum": []string{"csv", "json"}, "default": "csv"}}}
