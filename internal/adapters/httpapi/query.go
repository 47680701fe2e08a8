package httpapi

// queryParam documents one query parameter a route reads, for the OpenAPI document.
type queryParam struct {
	name, description string
	// schema is its JSON Schema (type, enum, minimum, maximum, format, default).
	schema map[string]any
	required bool
}
