package sqlrow

import (
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// NullOf maps a pointer to a nullable column value (the inverse of Ptr).
func NullOf[T any](p *T) sql.Null[T] {
	if p == nil {
		return sql.Null[T]{}
	}
	return sql.Null[T]{V: *p, Valid: true}
}

// Ptr returns the value of a nullable column as a pointer.
func Ptr[T any](v sql.Null[T]) *T {
	if !v.Valid {
		return nil
	}
	return &v.V
}

// Ref returns a pointer to v.
func Ref[T any](v T) *T { return &v }

// NullString maps a *string to a column value.
func NullString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// NonEmpty is s as a nullable column: NULL when empty.
func NonEmpty(s string) sql.Null[string] { return sql.Null[string]{V: s, Valid: s != ""} }

// MediumValue maps a watch medium to a column value, NULL when nil.
func MediumValue(m *domain.WatchMedium) any {
	if m == nil {
		return nil
	}
	return string(*m)
}

// UUIDValue maps a *uuid.UUID to a column value, NULL when nil.
func UUIDValue(id *uuid.UUID) any {
	if id == nil {
		return nil
	}
	return id.String()
}

// TimeValue maps a *time.Time to a Unix-ms column value, NULL when nil.
func TimeValue(t *time.Time) any {
	if t == nil {
		return nil
	}
	return Millis(*t)
}

// EscapeLike escapes LIKE's wildcards in s (the escape character is \).
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
