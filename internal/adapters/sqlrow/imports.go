package sqlrow

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/importer"
)

// ImportProfile is an import_profiles row.
type ImportProfile struct {
	ID        uuid.UUID `db:"id"`
	UserID    uuid.UUID `db:"user_id"`
	Name      string    `db:"name"`
	Mappings  string    `db:"mappings"`
	CreatedAt string    `db:"created_at"`
}

// Profile maps the row to its domain value.
func (r ImportProfile) Profile() (importer.Profile, error) {
	ms, err := DecodeMappings(r.Mappings)
	if err != nil {
		return importer.Profile{}, err
	}
	at, err := ParseTime(r.CreatedAt)
	return importer.Profile{ID: r.ID, UserID: r.UserID, Name: r.Name, Mappings: ms, CreatedAt: at}, err
}

// ImportRow is an import_rows row.
type ImportRow struct {
	Idx       int              `db:"idx"`
	Cells     string           `db:"cells"`
	ReadError sql.Null[string] `db:"read_error"`
}

// Row maps the row to its domain value.
func (r ImportRow) Row() (importer.Row, error) {
	out := importer.Row{Index: r.Idx, ReadErr: r.ReadError.V}
	if err := json.Unmarshal([]byte(r.Cells), &out.Cells); err != nil {
		return out, fmt.Errorf("stored import row %d: %w", r.Idx, err)
	}
	return out, nil
}

// ImportSession is an import_sessions row with its rows' counts.
type ImportSession struct {
	ID         uuid.UUID        `db:"id"`
	UserID     uuid.UUID        `db:"user_id"`
	Format     string           `db:"format"`
	Kind       string           `db:"kind"`
	Target     string           `db:"target"`
	Columns    string           `db:"columns"`
	Mappings   sql.Null[string] `db:"mappings"`
	RowCount   int              `db:"row_count"`
	Federate   bool             `db:"federate"`
	CreatedAt  int64            `db:"created_at"`
	ExpiresAt  int64            `db:"expires_at"`
	Confirmed  int              `db:"confirmed"`
	Processed  int              `db:"processed"`
	Imported   int              `db:"imported"`
	Duplicates int              `db:"duplicates"`
	Failed     int              `db:"failed"`
}

// MappingJSON is how a mapping is stored: the original's API field names.
type MappingJSON struct {
	SourceColumn string   `json:"source_column"`
	DomainField  string   `json:"domain_field"`
	RatingScale  *float64 `json:"rating_scale,omitempty"`
	DateFormat   string   `json:"date_format,omitempty"`
}

// EncodeMappings is an import's column mappings as their JSON column.
func EncodeMappings(ms []importer.Mapping) string {
	out := make([]MappingJSON, len(ms))
	for i, m := range ms {
		out[i] = MappingJSON{SourceColumn: m.SourceColumn, DomainField: string(m.Field), RatingScale: m.RatingScale, DateFormat: m.DateFormat}
	}
	raw, _ := json.Marshal(out)
	return string(raw)
}

// DecodeMappings reads the JSON column EncodeMappings wrote.
func DecodeMappings(raw string) ([]importer.Mapping, error) {
	var in []MappingJSON
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		return nil, fmt.Errorf("stored mappings: %w", err)
	}
	out := make([]importer.Mapping, len(in))
	for i, m := range in {
		out[i] = importer.Mapping{SourceColumn: m.SourceColumn, Field: importer.Field(m.DomainField), RatingScale: m.RatingScale, DateFormat: m.DateFormat}
	}
	return out, nil
}
