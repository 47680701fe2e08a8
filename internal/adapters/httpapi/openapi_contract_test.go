package httpapi_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestOpenAPIIsAContract: operation ids, required fields, ranges, formats and query parameters.
func TestOpenAPIIsAContract(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	raw := b.must(200, req{method: "GET", path: "/openapi.json"}).body
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type       any               `json:"type"`
		Required   []string          `json:"required"`
		Properties map[string]schema `json:"properties"`
		Items      *schema           `json:"items"`
		Minimum    *float64          `json:"minimum"`
		Maximum    *float64          `json:"maximum"`
		MaxLength  *int              `json:"maxLength"`
		Pattern    string            `json:"pattern"`
		Format     string            `json:"format"`
		Enum       []any             `json:"enum"`
		Default    any               `json:"default"`
	}
	type operation struct {
		OperationID string `json:"operationId"`
		Parameters  []struct {
			Name   string `json:"name"`
			In     string `json:"in"`
			Schema schema `json:"schema"`
		} `json:"parameters"`
		RequestBody struct {
			Content map[string]struct{ Schema schema } `json:"content"`
		} `json:"requestBody"`
		Responses map[string]struct {
			Content map[string]struct{ Schema schema } `json:"content"`
		} `json:"responses"`
	}
	ops := map[string]operation{}
	ids := map[string]string{}
	for path, byMethod := range doc.Paths {
		for method, rawOp := range byMethod {
			var op operation
			if err := json.Unmarshal(rawOp, &op); err != nil {
				t.Fatal(err)
			}
			key := method + " " + path
			if op.OperationID == "" {
				t.Errorf("%s has no operationId", key)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("operationId %s names both %s and %s", op.OperationID, other, key)
			}
			ids[op.OperationID] = key
			ops[key] = op
		}
	}
	if got := ops["get /api/v1/users/{id}/followers"].OperationID; got != "getUsersByIdFollowers" {
		t.Errorf("operationId = %q", got)
	}

	logReview := ops["post /api/v1/reviews"].RequestBody.Content["application/json"].Schema
	if !slices.Contains(logReview.Required, "rating") || !slices.Contains(logReview.Required, "watched_at") ||
		slices.Contains(logReview.Required, "comment") {
		t.Errorf("log review required = %v", logReview.Required)
	}
	edit := ops["patch /api/v1/reviews/{id}"].RequestBody.Content["application/json"].Schema
	if len(edit.Required) != 0 || edit.Properties["rating"].Type != "integer" || edit.Properties["watched_at"].Type != "string" {
		t.Errorf("edit review: required %v, rating %+v, watched_at %+v (absent or a value, never null)",
			edit.Required, edit.Properties["rating"], edit.Properties["watched_at"])
	}
	if c := edit.Properties["comment"].Type; !slices.Equal(toStrings(c), []string{"string", "null"}) {
		t.Errorf("edit review comment type = %v, want string or null (null clears it)", c)
	}
	if r := logReview.Properties["rating"]; r.Type != "integer" || r.Minimum == nil || *r.Minimum != 1 || *r.Maximum != 5 {
		t.Errorf("rating schema = %+v", r)
	}
	if c := logReview.Properties["comment"]; c.MaxLength == nil || *c.MaxLength != 10000 {
		t.Errorf("comment schema = %+v", c)
	}
	if m := logReview.Properties["watch_medium"]; len(m.Enum) != 8 { // seven media and null
		t.Errorf("watch_medium enum = %v", m.Enum)
	}

	diary := ops["get /api/v1/diary"]
	params := map[string]schema{}
	for _, p := range diary.Parameters {
		if p.In == "query" {
			params[p.Name] = p.Schema
		}
	}
	if l := params["limit"]; l.Minimum == nil || *l.Minimum != 1 || *l.Maximum != 100 || l.Default != 5.0 {
		t.Errorf("diary limit = %+v", l)
	}
	for _, name := range []string{"offset", "sort_by", "user_id", "movie_id"} {
		if _, ok := params[name]; !ok {
			t.Errorf("diary documents no %s parameter", name)
		}
	}
	page := diary.Responses["200"].Content["application/json"].Schema
	entry := page.Properties["items"].Items
	if !slices.Equal(page.Required, []string{"items", "total_count", "limit", "offset"}) || entry == nil {
		t.Fatalf("page schema = %+v", page)
	}
	rv := entry.Properties["review"]
	if w := rv.Properties["watched_at"]; w.Pattern != `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$` {
		t.Errorf("review watched_at = %+v", w)
	}
	if !slices.Contains(rv.Required, "comment") || slices.Contains(rv.Required, "watch_medium") {
		t.Errorf("review required = %v (comment is always sent, null or not; watch_medium is omitted when empty)", rv.Required)
	}

	export := ops["get /api/v1/diary/export"]
	if _, ok := export.Responses["200"].Content["text/csv"]; !ok {
		t.Errorf("export responses = %+v", export.Responses)
	}
	if _, ok := export.Responses["200"].Content["application/json"]; !ok {
		t.Errorf("export responses = %+v", export.Responses)
	}
	var formats []any
	for _, p := range export.Parameters {
		if p.Name == "format" {
			formats = p.Schema.Enum
		}
	}
	if !slices.Contains(formats, any("letterboxd")) {
		t.Errorf("export formats = %v, want letterboxd among them", formats)
	}
	if _, ok := ops["get /api/v1/account/archive"].Responses["200"].Content["application/zip"]; !ok {
		t.Errorf("archive download responses = %+v", ops["get /api/v1/account/archive"].Responses)
	}
	archiveImport := ops["post /api/v1/account/archive"]
	if form := archiveImport.RequestBody.Content["multipart/form-data"].Schema; !slices.Equal(form.Required, []string{"file"}) ||
		form.Properties["file"].Format != "binary" {
		t.Errorf("archive import body = %+v", archiveImport.RequestBody)
	}
	if rep := archiveImport.Responses["200"].Content["application/json"].Schema; rep.Properties["diary"].Properties["duplicates"].Type != "integer" ||
		rep.Properties["following"].Properties["skipped"].Items == nil {
		t.Errorf("archive import report schema = %+v", rep)
	}
	for _, code := range []string{"400", "413", "415"} {
		if _, ok := archiveImport.Responses[code]; !ok {
			t.Errorf("archive import documents no %s", code)
		}
	}
	report := ops["get /api/v1/wrapups/{id}/report"].Responses["200"].Content["application/json"].Schema
	if len(report.Required) != 39 || report.Properties["date_range"].Properties["start"].Format != "date" {
		t.Errorf("report schema: %d required keys (%v)", len(report.Required), report.Required)
	}
	wu := ops["get /api/v1/wrapups/{id}"].Responses["200"].Content["application/json"].Schema
	if wu.Properties["created_at"].Pattern == "" || wu.Properties["start_date"].Format != "date" {
		t.Errorf("wrap-up status schema = %+v", wu.Properties)
	}
}

func toStrings(v any) []string {
	var out []string
	if vs, ok := v.([]any); ok {
		for _, x := range vs {
			out = append(out, x.(string))
		}
	}
	return out
}
