package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// MaxBodyBytes is the largest request body the API reads (1 MiB).
const MaxBodyBytes = 1 << 20

// limitBody caps every request body at MaxBodyBytes; reading past it fails with
// *http.MaxBytesError, which decode turns into a 413. PUT /profile, which uploads images, is
// capped at MaxProfileBodyBytes instead.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := int64(MaxBodyBytes)
		if r.Method == http.MethodPut && r.URL.Path == profilePath {
			limit = MaxProfileBodyBytes // the avatar and banner upload
		}
		if r.Method == http.MethodPost && r.URL.Path == importSessionsPath {
			limit = MaxImportBodyBytes // a diary file to import
		}
		if r.Method == http.MethodPost && r.URL.Path == archivePath {
			limit = MaxArchiveBodyBytes // an account archive to import
		}
		if r.Method == http.MethodPost && isImportConfirm(r.URL.Path) {
			limit = MaxImportConfirmBytes // the indices of up to importer.MaxRows rows
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// decode reads a JSON body into v. The statuses follow the contract: not JSON by media type
// 415, too large 413, not parseable 400, parseable but of the wrong shape or types 422. A body
// that is not valid UTF-8 is a 400 (encoding/json would silently replace the bad bytes), and so
// is a string with a control character (checkText).
func decode(r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &httpError{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be application/json"}
	}
	body, err := io.ReadAll(r.Body) // at most MaxBodyBytes: limitBody caps it
	if err != nil {
		return decodeError(err)
	}
	if !utf8.Valid(body) {
		return badRequest("request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("request body must hold one JSON value")
	}
	return checkText(body)
}

func decodeError(err error) error {
	var (
		mbe    *http.MaxBytesError
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		de     *domain.Error
	)
	switch {
	case errors.As(err, &mbe):
		return &httpError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)}
	case errors.Is(err, io.EOF):
		return badRequest("request body must not be empty")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON: " + err.Error())
	case errors.As(err, &typ):
		if typ.Field != "" {
			return unprocessable(fmt.Sprintf("%s: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value))
		}
		return unprocessable(fmt.Sprintf("expected %s, got JSON %s", typ.Type, typ.Value))
	case errors.As(err, &de):
		return unprocessable(de.Message)
	}
	return unprocessable("invalid request body: " + err.Error())
}

func unprocessable(msg string) error {
	return &httpError{Status: http.StatusUnprocessableEntity, Message: msg}
}

// required reports a missing required field as the 422 a wrong shape gets.
func required(field string) error { return unprocessable("missing field `" + field + "`") }

// pathID parses the {name} URL parameter as a UUID; a malformed one is a 400.
func pathID(r *http.Request, name string) (uuid.UUID, error) {
	raw := chi.URLParam(r, name)
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, badRequest(fmt.Sprintf("invalid %s %q: not a UUID", name, raw))
	}
	return id, nil
}

// queryUUID parses an optional UUID query parameter.
func queryUUID(r *http.Request, name string) (*uuid.UUID, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return nil, nil
	}
	id, err := uuid.Parse(raw)
	if err != nil {
		return nil, badRequest(fmt.Sprintf("invalid %s %q: not a UUID", name, raw))
	}
	return &id, nil
}

// page reads limit (default def, 1..100) and offset (default 0) from the query.
func page(r *http.Request, def int) (domain.Page, error) {
	q := r.URL.Query()
	limit, offset := def, 0
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return domain.Page{}, badRequest("Limit must be between 1 and 100")
		}
		limit = n
	}
	if raw := q.Get("offset"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return domain.Page{}, badRequest("Offset must be a non-negative integer")
		}
		offset = n
	}
	return domain.NewPage(limit, offset)
}

// paginated is the list envelope: {items, total_count, limit, offset}.
type paginated[T any] struct {
	Items      []T `json:"items"`
	TotalCount int `json:"total_count"`
	Limit      int `json:"limit"`
	Offset     int `json:"offset"`
}

func toPaginated[S, T any](p domain.Paged[S], f func(S) T) paginated[T] {
	items := make([]T, 0, len(p.Items))
	for _, it := range p.Items {
		items = append(items, f(it))
	}
	return paginated[T]{Items: items, TotalCount: p.Total, Limit: p.Page.Limit, Offset: p.Page.Offset}
}
