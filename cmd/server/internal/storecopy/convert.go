package storecopy

import (
	"fmt"
	"strings"
)

// converter turns a value as the SQLite driver reads it into the value for the PostgreSQL
// column; nil (NULL) stays nil.
type converter func(v any) (any, error)

// affinity is SQLite's type affinity of a declared column type (the rules of "Datatypes In
// SQLite", 3.1): what the stored values can be.
func affinity(declared string) string {
	d := strings.ToUpper(declared)
	switch {
	case strings.Contains(d, "INT"):
		return "INTEGER"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "TEXT"
	case d == "", strings.Contains(d, "BLOB"):
		return "BLOB"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// converterFor is the conversion of a SQLite column declared declared into a PostgreSQL column
// of type udt. The pairs are those the two schemas use (migrations/ and migrations/postgres/);
// any other is an error, so a new column type is noticed before any row is copied.
func converterFor(declared, udt string) (converter, error) {
	switch a := affinity(declared); {
	case a == "INTEGER" && udt == "bool":
		return toBool, nil // SQLite has no boolean: 0 and 1
	case a == "INTEGER" && (udt == "int2" || udt == "int4" || udt == "int8"):
		return toInt, nil
	case a == "TEXT" && (udt == "text" || udt == "citext" || udt == "varchar"):
		return toText, nil // citext: case-insensitive text (usernames, e-mails, domains)
	case a == "BLOB" && udt == "bytea":
		return toBytes, nil
	case a == "REAL" && (udt == "float8" || udt == "float4"):
		return toFloat, nil
	}
	return nil, fmt.Errorf("no conversion from SQLite %s to PostgreSQL %s", declared, udt)
}

func toBool(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case int64:
		switch x {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	}
	return nil, fmt.Errorf("%v (%T) is not a boolean (0 or 1)", v, v)
}

func toInt(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64:
		return x, nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), nil
		}
	}
	return nil, fmt.Errorf("%v (%T) is not an integer", v, v)
}

func toText(v any) (any, error) {
	switch x := v.(type) {
	case nil, string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return nil, fmt.Errorf("%v (%T) is not text", v, v)
}

func toBytes(v any) (any, error) {
	switch x := v.(type) {
	case nil, []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return nil, fmt.Errorf("%v (%T) is not a blob", v, v)
}

func toFloat(v any) (any, error) {
	switch x := v.(type) {
	case nil, float64:
		return x, nil
	case int64:
		return float64(x), nil
	}
	return nil, fmt.Errorf("%v (%T) is not a number", v, v)
}
