package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/usecase/importer"
)

// importSessionsPath is the upload route; its body may be as large as MaxImportBodyBytes.
const importSessionsPath = "/api/v1/import/sessions"

// MaxImportBodyBytes is the largest upload body: the file at its limit and the form around it.
const MaxImportBodyBytes = importer.MaxFileBytes + 64<<10

// MaxImportConfirmBytes is the largest confirm body: importer.MaxRows indices as JSON.
const MaxImportConfirmBytes = 4 << 20

// isImportConfirm reports whether path is POST …/sessions/{id}/confirm.
func isImportConfirm(path string) bool {
	rest, ok := strings.CutPrefix(path, importSessionsPath+"/")
	return ok && strings.HasSuffix(rest, "/confirm") && strings.Count(rest, "/") == 1
}

// naiveLayout is the original's naive date-time (UTC, no zone).
const naiveLayout = "2006-01-02T15:04:05"

// importRoutes are the original's nine /api/v1/import routes.
func (s *Server) importRoutes() []route {
	const get, post, put, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete
	session := []int{400, 401, 404}
	return []route{
		{method: post, pattern: importSessionsPath, summary: "Upload a file to import (multipart file + format: csv, tsv, json, xlsx; detected when omitted)",
			access: accessUser, handle: s.createImportSession, upload: "file", response: importCreatedResponse{}, status: 200,
			errors: []int{400, 401, 413, 415}},
		{method: get, pattern: importSessionsPath + "/{id}", summary: "An import session: columns, mapping, rows, progress",
			access: accessUser, handle: s.getImportSession, response: importSessionResponse{}, status: 200, errors: session},
		{method: put, pattern: importSessionsPath + "/{id}/mapping", summary: "Map the file's columns onto review fields",
			access: accessUser, handle: s.putImportMapping, request: importMappingRequest{}, response: rowCountResponse{},
			status: 200, errors: []int{400, 401, 404, 409, 415, 422}},
		{method: get, pattern: importSessionsPath + "/{id}/preview", summary: "Every row: valid, duplicate or invalid with its errors",
			access: accessUser, handle: s.previewImport, response: importPreviewResponse{}, status: 200, errors: session},
		{method: post, pattern: importSessionsPath + "/{id}/confirm", summary: "Import the confirmed rows (resumable, idempotent; federate: true to announce them)",
			access: accessUser, handle: s.confirmImport, request: importConfirmRequest{}, response: importConfirmResponse{},
			status: 200, errors: []int{400, 401, 404, 409, 415, 422}},
		{method: put, pattern: importSessionsPath + "/{id}/profile/{profile_id}", summary: "Apply a saved mapping profile",
			access: accessUser, handle: s.applyImportProfile, response: rowCountResponse{}, status: 200, errors: []int{400, 401, 404, 409}},
		{method: get, pattern: "/api/v1/import/profiles", summary: "My mapping profiles", access: accessUser,
			handle: s.listImportProfiles, response: []importProfileDTO{}, status: 200, errors: []int{401}},
		{method: post, pattern: "/api/v1/import/profiles", summary: "Save a session's mapping as a profile", access: accessUser,
			handle: s.saveImportProfile, request: saveImportProfileRequest{}, response: idResponse{}, status: 200,
			errors: []int{400, 401, 404, 415, 422}},
		{method: del, pattern: "/api/v1/import/profiles/{id}", summary: "Delete a mapping profile", access: accessUser,
			handle: s.deleteImportProfile, status: 204, errors: []int{400, 401, 404}},
	}
}

// importCreatedResponse is the upload's answer: the original's fields, then this server's.
type importCreatedResponse struct {
	SessionID  uuid.UUID  `json:"session_id"`
	Columns    []string   `json:"columns"`
	SampleRows [][]string `json:"sample_rows"`
	Format     string     `json:"format"`
	Kind       string     `json:"kind"`
	Target     string     `json:"target"`
	HasMapping bool       `json:"has_mappings"`
	RowCount   int        `json:"row_count"`
}

// importSessionResponse is GET …/sessions/{id}: the original's fields, then this server's.
type importSessionResponse struct {
	SessionID  uuid.UUID          `json:"session_id"`
	Columns    []string           `json:"columns"`
	HasMapping bool               `json:"has_mappings"`
	RowCount   int                `json:"row_count"`
	Format     string             `json:"format"`
	Kind       string             `json:"kind"`
	Target     string             `json:"target"`
	Mappings   []importMappingDTO `json:"mappings"`
	Status     string             `json:"status"` // uploaded, confirming, interrupted, confirmed
	Federate   bool               `json:"federate"`
	Progress   importProgressDTO  `json:"progress"`
	ExpiresAt  string             `json:"expires_at"`
}

type importProgressDTO struct {
	Confirmed         int  `json:"confirmed"`
	Processed         int  `json:"processed"`
	Imported          int  `json:"imported"`
	SkippedDuplicates int  `json:"skipped_duplicates"`
	Failed            int  `json:"failed"`
	Running           bool `json:"running"`
}

type importMappingDTO struct {
	SourceColumn string   `json:"source_column"`
	DomainField  string   `json:"domain_field"`
	RatingScale  *float64 `json:"rating_scale,omitempty"`
	DateFormat   *string  `json:"date_format,omitempty"`
}

type importMappingRequest struct {
	Mappings *[]importMappingDTO `json:"mappings"`
}

type rowCountResponse struct {
	RowCount int `json:"row_count"`
}

// importPreviewRowDTO is one preview row: valid and duplicate rows carry the fields, invalid
// ones their errors. Values are strings, as in the original.
type importPreviewRowDTO struct {
	Status      string  `json:"status"`
	Index       int     `json:"index"`
	Title       *string `json:"title,omitempty"`
	ReleaseYear *string `json:"release_year,omitempty"`
	Director    *string `json:"director,omitempty"`
	Rating      *string `json:"rating,omitempty"`
	// RatingPrecise is the rating before rounding when it is not whole ("4.5"); Rewatch is
	// "true" for a rewatch. Both this server's.
	RatingPrecise *string  `json:"rating_precise,omitempty"`
	Rewatch       *string  `json:"rewatch,omitempty"`
	WatchedAt     *string  `json:"watched_at,omitempty"`
	Comment       *string  `json:"comment,omitempty"`
	ExternalID    *string  `json:"external_metadata_id,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}

type importPreviewResponse struct {
	Rows []importPreviewRowDTO `json:"rows"`
}

type importConfirmRequest struct {
	ConfirmedIndices *[]int `json:"confirmed_indices"`
	// Federate announces the imported reviews to followers; by default they are not.
	Federate bool `json:"federate"`
}

type importFailureDTO struct {
	Index int    `json:"index"`
	Error string `json:"error"`
}

type importConfirmResponse struct {
	Imported          int                `json:"imported"`
	SkippedDuplicates int                `json:"skipped_duplicates"`
	Failed            []importFailureDTO `json:"failed"`
}

type importProfileDTO struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	CreatedAt string    `json:"created_at"`
}

type saveImportProfileRequest struct {
	SessionID *string `json:"session_id"`
	Name      *string `json:"name"`
}

// importID parses a path id; a malformed one is the original's 400.
func importID(r *http.Request, param, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, param))
	if err != nil {
		return uuid.Nil, badRequest("invalid " + what + " id")
	}
	return id, nil
}

// limitedUpload is the file part: past the limit it fails with importer.ErrTooLarge, and
// remembers it, whatever a parser makes of the error.
type limitedUpload struct {
	r        io.Reader
	exceeded atomic.Bool
}

func (u *limitedUpload) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		u.exceeded.Store(true)
		return n, fmt.Errorf("%w: the upload exceeds %d bytes", importer.ErrTooLarge, importer.MaxFileBytes)
	}
	return n, err
}

// createImportSession reads the multipart form as a stream: a format part before the file part
// is used; the file part is parsed as it arrives.
func (s *Server) createImportSession(w http.ResponseWriter, r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return &httpError{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be multipart/form-data"}
	}
	if r.ContentLength > MaxImportBodyBytes {
		return &httpError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the file exceeds %d bytes", importer.MaxFileBytes)}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return badRequest("malformed multipart body: " + err.Error())
	}
	extendDeadlines(w)
	up := importer.Upload{UserID: currentUser(r)}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return badRequest("no file")
		}
		if err != nil {
			return multipartError(err)
		}
		switch part.FormName() {
		case "format":
			text, err := readPart(part, 64, "format")
			if err != nil {
				return err
			}
			up.Format = strings.TrimSpace(string(text))
			continue
		case "file":
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return multipartError(err)
			}
			continue
		}
		body := &limitedUpload{r: part}
		up.Filename, up.Body = part.FileName(), body
		created, err := s.Imports.Create(r.Context(), up)
		if body.exceeded.Load() || errors.Is(err, importer.ErrTooLarge) {
			msg := fmt.Sprintf("the file exceeds %d bytes", importer.MaxFileBytes)
			if err != nil && !body.exceeded.Load() {
				msg = err.Error()
			}
			return &httpError{Status: http.StatusRequestEntityTooLarge, Message: msg}
		}
		if err != nil {
			return err
		}
		sess := created.Session
		writeJSON(w, http.StatusOK, importCreatedResponse{SessionID: sess.ID, Columns: sess.Columns, SampleRows: created.Sample,
			Format: sess.Format, Kind: string(sess.Kind), Target: string(sess.Target), HasMapping: sess.Mappings != nil,
			RowCount: sess.RowCount})
		return nil
	}
}

func (s *Server) getImportSession(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "session")
	if err != nil {
		return err
	}
	sess, err := s.Imports.Get(r.Context(), currentUser(r), id)
	if err != nil {
		return err
	}
	p := sess.Progress
	status := "uploaded"
	switch {
	case sess.Running:
		status = "confirming"
	case p.Confirmed > 0 && p.Processed < p.Confirmed:
		status = "interrupted" // a confirm stopped (a crash): confirm again to finish
	case p.Confirmed > 0:
		status = "confirmed"
	}
	out := importSessionResponse{SessionID: sess.ID, Columns: sess.Columns, HasMapping: sess.Mappings != nil, RowCount: sess.RowCount,
		Format: sess.Format, Kind: string(sess.Kind), Target: string(sess.Target), Mappings: []importMappingDTO{}, Status: status,
		Federate: sess.Federate,
		Progress: importProgressDTO{Confirmed: p.Confirmed, Processed: p.Processed, Imported: p.Imported,
			SkippedDuplicates: p.Duplicates, Failed: p.Failed, Running: sess.Running},
		ExpiresAt: sess.ExpiresAt.UTC().Format(naiveLayout)}
	for _, m := range sess.Mappings {
		d := importMappingDTO{SourceColumn: m.SourceColumn, DomainField: string(m.Field), RatingScale: m.RatingScale}
		if m.DateFormat != "" {
			d.DateFormat = &m.DateFormat
		}
		out.Mappings = append(out.Mappings, d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) putImportMapping(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "session")
	if err != nil {
		return err
	}
	var req importMappingRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Mappings == nil {
		return required("mappings")
	}
	ms := make([]importer.MappingRequest, 0, len(*req.Mappings))
	for _, m := range *req.Mappings {
		ms = append(ms, importer.MappingRequest{SourceColumn: m.SourceColumn, Field: m.DomainField, RatingScale: m.RatingScale,
			DateFormat: m.DateFormat})
	}
	n, err := s.Imports.SetMapping(r.Context(), currentUser(r), id, ms)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rowCountResponse{RowCount: n})
	return nil
}

// previewImport streams {"rows": [...]} one row at a time: a 50,000-row preview never sits in
// memory. An error before the first row is an ordinary error answer; one after it cuts the
// body short (and is logged), so a client never takes a partial list for the whole.
func (s *Server) previewImport(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "session")
	if err != nil {
		return err
	}
	extendDeadlines(w)
	started := false
	enc := json.NewEncoder(w)
	err = s.Imports.Preview(r.Context(), currentUser(r), id, func(pr importer.PreviewRow) error {
		sep := ","
		if !started {
			started, sep = true, ""
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			if _, err := io.WriteString(w, `{"rows":[`); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		return enc.Encode(previewRow(pr))
	})
	switch {
	case err != nil && started:
		s.log.ErrorContext(r.Context(), "import preview cut short", "session_id", id, "error", err)
		panic(http.ErrAbortHandler)
	case err != nil:
		return err
	case !started:
		writeJSON(w, http.StatusOK, importPreviewResponse{Rows: []importPreviewRowDTO{}})
		return nil
	}
	_, _ = io.WriteString(w, "]}\n")
	return nil
}

func previewRow(pr importer.PreviewRow) importPreviewRowDTO {
	d := importPreviewRowDTO{Status: pr.Status, Index: pr.Index}
	if pr.Status == importer.StatusInvalid {
		d.Errors = pr.Errors
		return d
	}
	c := pr.Candidate
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	d.Title, d.Director, d.Comment, d.ExternalID = str(c.Title), str(c.Director), str(c.Comment), str(c.ExternalID)
	if c.Year != nil {
		d.ReleaseYear = str(strconv.Itoa(*c.Year))
	}
	if c.Rating > 0 {
		d.Rating = str(strconv.Itoa(c.Rating))
	}
	if c.RatingPrecise != nil {
		d.RatingPrecise = str(strconv.FormatFloat(*c.RatingPrecise, 'f', -1, 64))
	}
	if c.Rewatch {
		d.Rewatch = str("true")
	}
	if !c.WatchedAt.IsZero() {
		d.WatchedAt = str(c.WatchedAt.UTC().Format(naiveLayout))
	}
	return d
}

func (s *Server) confirmImport(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "session")
	if err != nil {
		return err
	}
	var req importConfirmRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.ConfirmedIndices == nil {
		return required("confirmed_indices")
	}
	extendDeadlines(w)
	res, err := s.Imports.Confirm(r.Context(), currentUser(r), id, *req.ConfirmedIndices, req.Federate)
	if err != nil {
		return err
	}
	out := importConfirmResponse{Imported: res.Imported, SkippedDuplicates: res.Duplicates, Failed: make([]importFailureDTO, 0, len(res.Failed))}
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, importFailureDTO{Index: f.Index, Error: f.Error})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) applyImportProfile(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "session")
	if err != nil {
		return err
	}
	profileID, err := importID(r, "profile_id", "profile")
	if err != nil {
		return err
	}
	n, err := s.Imports.ApplyProfile(r.Context(), currentUser(r), id, profileID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rowCountResponse{RowCount: n})
	return nil
}

func (s *Server) listImportProfiles(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.Imports.Profiles(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]importProfileDTO, 0, len(ps))
	for _, p := range ps {
		out = append(out, importProfileDTO{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt.UTC().Format(naiveLayout)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) saveImportProfile(w http.ResponseWriter, r *http.Request) error {
	var req saveImportProfileRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.SessionID == nil {
		return required("session_id")
	}
	if req.Name == nil {
		return required("name")
	}
	sid, err := uuid.Parse(*req.SessionID)
	if err != nil {
		return badRequest("invalid session id")
	}
	id, err := s.Imports.SaveProfile(r.Context(), currentUser(r), sid, *req.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, idResponse{ID: id})
	return nil
}

func (s *Server) deleteImportProfile(w http.ResponseWriter, r *http.Request) error {
	id, err := importID(r, "id", "profile")
	if err != nil {
		return err
	}
	if err := s.Imports.DeleteProfile(r.Context(), currentUser(r), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// importDeadline bounds an import request's reads and writes: a large file uploads, previews
// and confirms for longer than the server's default timeouts (30 s read, 60 s write) allow.
const importDeadline = 30 * time.Minute

// extendDeadlines moves the connection's deadlines to importDeadline from now; a writer that
// cannot (a test recorder) keeps its own.
func extendDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	at := time.Now().Add(importDeadline)
	_ = rc.SetReadDeadline(at)
	_ = rc.SetWriteDeadline(at)
}
