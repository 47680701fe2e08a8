package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

// openAPI serves the OpenAPI 3.1 document of routes(), built once.
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	s.docOnce.Do(func() { s.doc = s.Document() })
	writeJSON(w, http.StatusOK, s.doc)
	return nil
}

// docCache holds the document, and its page for people (apidocs.go), once built.
type docCache struct {
	docOnce sync.Once
	doc     map[string]any

	docPageOnce sync.Once
	docPage     []byte
	docPageErr  error
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
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT or mdp_ token",
					"description": "A log-in's access token (JWT), or a personal access token (mdp_…) within its scope: " +
						"read for GET and HEAD, write for every other route but the admin ones, admin for those; " +
						"the /api/v1/account routes take a log-in's token only"},
			},
			"schemas": map[string]any{"Error": map[string]any{
				"type": "object", "required": []string{"error"},
				"properties": map[string]any{"error": map[string]any{"type": "string"}},
			}},
		},
	}
}

func operation(rt route) map[string]any {
	op := map[string]any{"summary": rt.summary, "operationId": operationID(rt.method, rt.pattern)}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.pattern, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": pathSchema(m[1])})
	}
	for _, q := range rt.query {
		params = append(params, map[string]any{"name": q.name, "in": "query", "required": false,
			"description": q.description, "schema": q.schema})
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
			"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.request), inRequest)}}}
	}
	if rt.upload != "" {
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"multipart/form-data": map[string]any{"schema": map[string]any{"type": "object", "required": []string{rt.upload},
				"properties": map[string]any{rt.upload: map[string]any{"type": "string", "format": "binary"}}}}}}
	}
	ok := map[string]any{"description": http.StatusText(rt.status)}
	if rt.produces != "" {
		content := map[string]any{}
		for mt := range strings.SplitSeq(rt.produces, ",") {
			schema := map[string]any{"type": "string"}
			if mt = strings.TrimSpace(mt); mt == "application/zip" {
				schema["format"] = "binary"
			}
			content[mt] = map[string]any{"schema": schema}
		}
		ok["content"] = content
	} else if rt.response != nil {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.response), inResponse)}}
	}
	responses := map[string]any{strconv.Itoa(rt.status): ok}
	errRef := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
	for _, code := range append(rt.errors, http.StatusInternalServerError) {
		if code < 400 {
			responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code)}
			continue
		}
		responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code), "content": errRef}
	}
	for code, body := range errorBodies[rt.method+" "+rt.pattern] {
		responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code), "content": map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"oneOf": []any{
				map[string]any{"$ref": "#/components/schemas/Error"}, schemaOf(reflect.TypeOf(body), inResponse)}}}}}
	}
	op["responses"] = responses
	return op
}

// operationID names an operation after its method and path: GET /api/v1/users/{id}/followers
// is getUsersByIdFollowers, GET /feed.rss getFeedRss. Method and path are unique, so is this.
func operationID(method, pattern string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for seg := range strings.SplitSeq(strings.TrimPrefix(pattern, "/api/v1"), "/") {
		switch {
		case seg == "":
		case seg == "*":
			b.WriteString("Any")
		case strings.HasPrefix(seg, "{"):
			b.WriteString("By" + camel(strings.Trim(seg, "{}")))
		default:
			b.WriteString(camel(seg))
		}
	}
	if b.Len() == len(method) {
		b.WriteString("Root")
	}
	return b.String()
}

// camel is a path segment as one capitalised word: well-known → WellKnown, feed.rss → FeedRss.
func camel(seg string) string {
	var b strings.Builder
	for w := range strings.FieldsFuncSeq(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// pathSchema is the schema of a path parameter: a UUID, except the ones named for what else
// they carry.
func pathSchema(name string) map[string]any {
	switch name {
	case "year":
		return map[string]any{"type": "integer", "minimum": 1, "maximum": 9999}
	case "domain":
		return map[string]any{"type": "string", "format": "hostname"}
	case "key":
		return map[string]any{"type": "string"}
	}
	return map[string]any{"type": "string", "format": "uuid"}
}

var (
	uuidType        = reflect.TypeOf(uuid.UUID{})
	timeType        = reflect.TypeOf(time.Time{})
	rawJSONType     = reflect.TypeOf(json.RawMessage{})
	watchMediumType = reflect.TypeOf(domain.WatchMedium(""))
	optionalName    = regexp.MustCompile(`^optional\[`)
)

// direction is which way a schema's body travels: what a response always carries is required;
// what a request must carry is marked with the openapi:"required" tag.
type direction int

const (
	inResponse direction = iota
	inRequest
)

// namedFormats are the string forms fields carry, by the name their openapi:"format=…" tag uses.
var namedFormats = map[string]map[string]any{
	"date": {"type": "string", "format": "date"},
	// naive-date-time is the original's review time: YYYY-MM-DDTHH:MM:SS in UTC, no zone.
	"naive-date-time": {"type": "string", "pattern": `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`,
		"description": "YYYY-MM-DDTHH:MM:SS, UTC without a zone suffix", "examples": []string{"2024-03-01T20:15:30"}},
	// display-date-time is chrono's NaiveDateTime display: YYYY-MM-DD HH:MM:SS in UTC.
	"display-date-time": {"type": "string", "pattern": `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`,
		"description": "YYYY-MM-DD HH:MM:SS, UTC", "examples": []string{"2024-03-01 20:15:30"}},
	"date-time": {"type": "string", "format": "date-time"},
	// watched-at is what a client may send as watched_at.
	"watched-at": {"type": "string", "description": "YYYY-MM-DD (midnight), YYYY-MM-DDTHH:MM[:SS], " +
		"YYYY-MM-DD HH:MM:SS (all UTC) or RFC 3339", "examples": []string{"2024-03-01", "2024-03-01T20:15:30", "2024-03-01T22:15:30+02:00"}},
	"uri": {"type": "string", "format": "uri"},
}

// schemaOf describes a Go type as a JSON Schema the way encoding/json encodes it.
func schemaOf(t reflect.Type, dir direction) map[string]any {
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
	case t == watchMediumType:
		s = map[string]any{"type": "string", "enum": domain.WatchMedia}
	case optionalName.MatchString(t.Name()):
		f, _ := t.FieldByName("Value")
		s, nullable = schemaOf(f.Type, dir), true
	case t == scopeType:
		s = map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "required": []string{"User"},
				"properties": map[string]any{"User": map[string]any{"type": "string", "format": "uuid"}}},
			map[string]any{"const": "Global"},
		}}
	default:
		s = kindSchema(t, dir)
	}
	if nullable {
		if typ, ok := s["type"].(string); ok {
			s["type"] = []string{typ, "null"}
		}
		if enum, ok := s["enum"].([]domain.WatchMedium); ok {
			s["enum"] = append(slicesOfAny(enum), nil)
		}
	}
	return s
}

var scopeType = reflect.TypeOf(wrapup.Scope{})

func slicesOfAny[T any](in []T) []any {
	out := make([]any, 0, len(in)+1)
	for _, v := range in {
		out = append(out, v)
	}
	return out
}

func kindSchema(t reflect.Type, dir direction) map[string]any {
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
	case reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), dir), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), dir)}
	case reflect.Map:
		return map[string]any{"type": "object"}
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fs := schemaOf(f.Type, dir)
			must := applyTag(fs, f.Tag.Get("openapi"))
			omitted := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
			if omitted {
				fs["description"] = strings.TrimPrefix(fmt.Sprint(fs["description"], "; omitted when empty"), "<nil>; ")
			}
			if (dir == inResponse && !omitted) || (dir == inRequest && must) {
				required = append(required, name)
			}
			props[name] = fs
		}
		s := map[string]any{"type": "object", "properties": props}
		if required != nil {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

// applyTag adds an openapi:"…" tag's constraints to a field's schema: required, nonnull, minimum=N,
// maximum=N, maxLength=N, format=<a namedFormats name>. It reports whether the field is
// required in a request.
func applyTag(s map[string]any, tag string) (required bool) {
	for d := range strings.SplitSeq(tag, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch k {
		case "required":
			required = true
		case "nonnull":
			// An optional[T] that may be absent but not null (null is a 422).
			if typ, ok := s["type"].([]string); ok {
				s["type"] = typ[0]
			}
		case "minimum", "maximum", "maxLength", "minLength":
			if n, err := strconv.Atoi(v); err == nil {
				s[k] = n
			} else if f, err := strconv.ParseFloat(v, 64); err == nil {
				s[k] = f // rating_precise's 0.5
			}
		case "format":
			typ := s["type"]
			for fk, fv := range namedFormats[v] {
				s[fk] = fv
			}
			if _, nullable := typ.([]string); nullable {
				s["type"] = typ
			}
		}
	}
	return required
}
