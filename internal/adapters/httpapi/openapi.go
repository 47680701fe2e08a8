package httpapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// openAPI serves the OpenAPI 3.1 document of routes(), built once.
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	s.docOnce.Do(func() { s.doc = s.Document() })
	writeJSON(w, http.StatusOK, s.doc)
	return nil
}

// docCache holds the document once built.
type docCache struct {
	docOnce sync.Once
	doc     map[string]any
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// Document is the OpenAPI 3.1 description of every route, with request and response schemas
// derived from the Go types the handlers decode and encode.
func (s *Server) Document() map[string]any {
	paths := map[string]any{}
	for _, rt := range s.routes() {
		item, _ := paths[rt.pattern].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = operation(rt)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "moviesdiary",
			"version": "1",
			"description": "Self-hosted federated movie diary. Every error body is {\"error\": \"<message>\"}. " +
				"Paginated lists take limit (1..100) and offset.",
		},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
			},
			"schemas": map[string]any{"Error": map[string]any{
				"type": "object", "required": []string{"error"},
				"properties": map[string]any{"error": map[string]any{"type": "string"}},
			}},
		},
	}
}

func operation(rt route) map[string]any {
	op := map[string]any{"summary": rt.summary}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.pattern, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
			"schema": map[string]any{"type": "string", "format": "uuid"}})
	}
	if rt.pattern == "/api/v1/reviews" && rt.method == http.MethodPost {
		params = append(params, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
			"schema": map[string]any{"type": "string", "maxLength": maxIdempotencyKey}})
	}
	if params != nil {
		op["parameters"] = params
	}
	if rt.access != accessPublic {
		op["security"] = []any{map[string]any{"bearer": []string{}}}
	}
	if rt.request != nil {
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.request))}}}
	}
	ok := map[string]any{"description": http.StatusText(rt.status)}
	if rt.produces != "" {
		ok["content"] = map[string]any{rt.produces: map[string]any{"schema": map[string]any{"type": "string"}}}
	} else if rt.response != nil {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.response))}}
	}
	responses := map[string]any{strconv.Itoa(rt.status): ok}
	errRef := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
	for _, code := range append(rt.errors, http.StatusInternalServerError) {
		if code < 300 {
			responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code)}
			continue
		}
		responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code), "content": errRef}
	}
	op["responses"] = responses
	return op
}

var (
	uuidType     = reflect.TypeOf(uuid.UUID{})
	timeType     = reflect.TypeOf(time.Time{})
	rawJSONType  = reflect.TypeOf(json.RawMessage{})
	optionalName = regexp.MustCompile(`^optional\[`)
)

// schemaOf describes a Go type as a JSON Schema the way encoding/json encodes it.
func schemaOf(t reflect.Type) map[string]any {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	var s map[string]any
	switch {
	case t == uuidType:
		s = map[string]any{"type": "string", "format": "uuid"}
	case t == timeType:
		s = map[string]any{"type": "string", "format": "date-time"}
	case t == rawJSONType:
		s = map[string]any{}
	case optionalName.MatchString(t.Name()):
		f, _ := t.FieldByName("Value")
		s, nullable = schemaOf(f.Type), true
	default:
		s = kindSchema(t)
	}
	if nullable {
		if typ, ok := s["type"].(string); ok {
			s["type"] = []string{typ, "null"}
		}
	}
	return s
}

func kindSchema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object"}
	case reflect.Struct:
		props := map[string]any{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fs := schemaOf(f.Type)
			if strings.Contains(opts, "omitempty") {
				fs["description"] = "omitted when empty"
			}
			props[name] = fs
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}
