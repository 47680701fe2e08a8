package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/importer"
)

// maxImportForm bounds the import form: the file at the importer's limit and the form around
// it. Past the in-memory share of maxForm the upload spills to a temporary file.
const maxImportForm = importer.MaxFileBytes + 64<<10

// importPreviewShown is how many preview rows the page lists; the counts cover every row.
const importPreviewShown = 100

// importDeadline bounds the reads and writes of the import pages and the export, as the API's
// import routes do: a large file uploads, previews and confirms for longer than the server's
// default timeouts.
const importDeadline = 30 * time.Minute

// longRequest extends the connection's deadlines before the form is read.
func longRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		at := time.Now().Add(importDeadline)
		_ = rc.SetReadDeadline(at)
		_ = rc.SetWriteDeadline(at)
		next.ServeHTTP(w, r)
	})
}

// importFields are the review fields a column may be mapped onto, in the form's order.
var importFields = []importer.Field{importer.FieldTitle, importer.FieldYear, importer.FieldDirector,
	importer.FieldRating, importer.FieldWatchedAt, importer.FieldComment, importer.FieldExternalID, importer.FieldTags,
	importer.FieldRewatch, importer.FieldWatchedTime, importer.FieldWatchMedium}

// importPage is one upload: what was recognised, the mapping, the preview and the progress.
type importPage struct {
	formState
	Session importer.Session
	// Mapped is each column's field ("" for none), for the mapping form.
	Mapped  map[string]string
	Fields  []importer.Field
	Rows    []importer.PreviewRow
	Counts  map[string]int
	Total   int
	Shown   int
	Preview bool // the session has a mapping, so the preview was read
	// Scales are the rating scales the form offers, the mapping's own selected; DateFormat is
	// the mapping's watched_at format ("" reads the default forms).
	Scales      []scaleOption
	DateFormat  string
	DateFormats []dateFormat
}

// scaleOption is one rating scale of the mapping form: the multiplier that turns the file's
// ratings into stars, as the API's rating_scale.
type scaleOption struct {
	Value, Label string
	Selected     bool
}

// ratingScales are the scales the form offers; a mapping's other scale (set through the API or
// a profile) is offered beside them.
var ratingScales = []scaleOption{
	{Value: "1", Label: "Stars, 0.5–5 or 1–5 (as they are)"},
	{Value: "0.5", Label: "Ten points, 1–10 (halved: IMDb)"},
	{Value: "0.05", Label: "Percent, 1–100"},
}

// dateFormat is a watched_at format the form suggests, with a date it reads.
type dateFormat struct{ Format, Example string }

// dateFormats are the watched_at formats the form suggests.
var dateFormats = []dateFormat{
	{"%d.%m.%Y", "05.01.2024"}, {"%d/%m/%Y", "05/01/2024"}, {"%m/%d/%Y", "01/05/2024"}, {"%d-%m-%Y", "05-01-2024"},
	{"%Y-%m-%d %H:%M", "2024-01-05 20:30"},
}

// mappingOptions fills the form's scale and date format from the session's mappings: the
// first rating column's scale and the first watched_at column's format.
func (d *importPage) mappingOptions(ms []importer.Mapping) {
	scale := "1"
	for _, m := range ms {
		if m.Field == importer.FieldRating && m.RatingScale != nil {
			scale = strconv.FormatFloat(*m.RatingScale, 'g', -1, 64)
			break
		}
	}
	for _, m := range ms {
		if m.Field == importer.FieldWatchedAt && m.DateFormat != "" {
			d.DateFormat = m.DateFormat
			break
		}
	}
	found := false
	for _, o := range ratingScales {
		o.Selected = o.Value == scale
		found = found || o.Selected
		d.Scales = append(d.Scales, o)
	}
	if !found {
		d.Scales = append(d.Scales, scaleOption{Value: scale, Label: "× " + scale + " (the saved mapping's)", Selected: true})
	}
}

// uploadImport stores the chosen file as an import session and opens its page.
func (s *Server) uploadImport(w http.ResponseWriter, r *http.Request, v visit) error {
	f, hdr, err := r.FormFile("file")
	if err != nil {
		return s.refusedSettings(w, r, v, domain.Invalid("Choose a file to import."))
	}
	defer f.Close()
	created, err := s.Imports.Create(r.Context(), importer.Upload{UserID: v.me.ID,
		Format: strings.TrimSpace(r.PostFormValue("format")), Filename: hdr.Filename, Body: f})
	if errors.Is(err, importer.ErrTooLarge) {
		// The error names the limit passed (the rows, a column count, an XLSX part's size…).
		err = endpoint.Fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is refused: %s.",
			strings.TrimPrefix(err.Error(), importer.ErrTooLarge.Error()+": ")))
	}
	if err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/import/"+created.Session.ID.String())
}

func (s *Server) importSession(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderImport(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderImport(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	sess, err := s.Imports.Get(ctx, v.me.ID, id)
	if err != nil {
		return err
	}
	d := importPage{formState: f, Session: sess, Fields: importFields, Mapped: map[string]string{}, DateFormats: dateFormats,
		Counts: map[string]int{}, Shown: importPreviewShown}
	for _, m := range sess.Mappings {
		if d.Mapped[m.SourceColumn] == "" {
			d.Mapped[m.SourceColumn] = string(m.Field)
		}
	}
	d.mappingOptions(sess.Mappings)
	if sess.Mappings != nil {
		d.Preview = true
		err := s.Imports.Preview(ctx, v.me.ID, id, func(pr importer.PreviewRow) error {
			d.Counts[pr.Status]++
			d.Total++
			if len(d.Rows) < importPreviewShown {
				d.Rows = append(d.Rows, pr)
			}
			return nil
		})
		if err != nil && statusOf(err) >= 500 {
			return err
		}
		if err != nil && d.Err == "" {
			d.Err = messageOf(err)
		}
	}
	return s.render(w, r, v, status, "import", "Import", d)
}

// refusedImport re-renders the import page with err's message, or returns a failure of ours.
func (s *Server) refusedImport(w http.ResponseWriter, r *http.Request, v visit, err error) error {
	if st := statusOf(err); st >= 500 || st == http.StatusNotFound {
		return err
	}
	return s.renderImport(w, r, v, statusOf(err), formState{Err: messageOf(err)})
}

// mapImport maps each column onto the field chosen for it (field-N for column N; none left
// out).
func (s *Server) mapImport(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	sess, err := s.Imports.Get(r.Context(), v.me.ID, id)
	if err != nil {
		return err
	}
	var scale *float64
	if raw := strings.TrimSpace(r.PostFormValue("rating_scale")); raw != "" {
		f, err := strconv.ParseFloat(strings.Replace(raw, ",", ".", 1), 64)
		if err != nil {
			return s.refusedImport(w, r, v, domain.Invalid("The rating scale %q is not a number.", raw))
		}
		scale = &f
	}
	var dateFormat *string
	if raw := strings.TrimSpace(r.PostFormValue("date_format")); raw != "" {
		dateFormat = &raw
	}
	var ms []importer.MappingRequest
	for i, c := range sess.Columns {
		f := r.PostFormValue(fmt.Sprintf("field-%d", i))
		if f == "" {
			continue
		}
		m := importer.MappingRequest{SourceColumn: c, Field: f}
		switch importer.Field(f) {
		case importer.FieldRating:
			m.RatingScale = scale
		case importer.FieldWatchedAt:
			m.DateFormat = dateFormat
		}
		ms = append(ms, m)
	}
	if _, err := s.Imports.SetMapping(r.Context(), v.me.ID, id, ms); err != nil {
		return s.refusedImport(w, r, v, err)
	}
	return redirect(w, r, "/import/"+id.String()+"?done=mapped")
}

// confirmImport imports every row the preview finds valid; duplicates and invalid rows stay
// out. federate announces the imported reviews to followers.
func (s *Server) confirmImport(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	var valid []int
	err = s.Imports.Preview(ctx, v.me.ID, id, func(pr importer.PreviewRow) error {
		if pr.Status == importer.StatusValid {
			valid = append(valid, pr.Index)
		}
		return nil
	})
	if err != nil {
		return s.refusedImport(w, r, v, err)
	}
	if len(valid) == 0 {
		return s.refusedImport(w, r, v, domain.Invalid("No row is ready to import."))
	}
	if _, err := s.Imports.Confirm(ctx, v.me.ID, id, valid, r.PostFormValue("federate") == "on"); err != nil {
		return s.refusedImport(w, r, v, err)
	}
	return redirect(w, r, "/import/"+id.String()+"?done=imported")
}
