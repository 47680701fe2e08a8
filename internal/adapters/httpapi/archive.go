package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/usecase/archive"
)

// archivePath is the account archive's route: GET downloads it, POST imports one (a body as
// large as MaxArchiveBodyBytes).
const archivePath = "/api/v1/account/archive"

// MaxArchiveBodyBytes is the largest archive upload body: the archive at its limit and the form
// around it.
const MaxArchiveBodyBytes = archive.MaxBytes + 64<<10

// archiveRoutes are the account archive's download and import.
func (s *Server) archiveRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: archivePath, summary: "Download my account archive (a zip of JSON and CSV files, streamed; README: Account archive)",
			access: accessUser, handle: s.exportArchive, produces: "application/zip", status: 200, errors: []int{401}},
		{method: http.MethodPost, pattern: archivePath, summary: "Import an account archive into my account (multipart file; idempotent: a second import adds nothing)",
			access: accessUser, handle: s.importArchive, upload: "file", response: archive.Report{}, status: 200, errors: []int{400, 401, 413, 415}},
	}
}

// exportArchive streams the caller's account archive as an attachment. The response starts at
// the archive's first byte (after the account is read), so an early failure is still a JSON
// error; a later one aborts the response, never a zip that looks whole.
func (s *Server) exportArchive(w http.ResponseWriter, r *http.Request) error {
	extendDeadlines(w)
	out := &lazyAttachment{w: w, contentType: "application/zip",
		filename: "moviesdiary-archive-" + time.Now().UTC().Format("2006-01-02") + ".zip"}
	err := s.Archive.Export(r.Context(), currentUser(r), out)
	if err == nil {
		err = out.finish()
	}
	if err != nil && out.started {
		s.log.ErrorContext(r.Context(), "account archive aborted", "error", err, "request_id", middleware.GetReqID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	return err
}

// importArchive reads the multipart "file" into a temporary file (a zip is read from its end)
// and imports it: a bad archive is a 400 with nothing written, one too large a 413.
func (s *Server) importArchive(w http.ResponseWriter, r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return &httpError{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be multipart/form-data"}
	}
	tooLarge := &httpError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the archive exceeds %d bytes", archive.MaxBytes)}
	if r.ContentLength > MaxArchiveBodyBytes {
		return tooLarge
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return badRequest("malformed multipart body: " + err.Error())
	}
	extendDeadlines(w)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return badRequest("no file: send the archive as the multipart field \"file\"")
		}
		if err != nil {
			return multipartError(err)
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return multipartError(err)
			}
			continue
		}
		f, err := os.CreateTemp("", "moviesdiary-archive-*.zip")
		if err != nil {
			return fmt.Errorf("archive upload: %w", err)
		}
		defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
		n, err := io.Copy(f, io.LimitReader(part, archive.MaxBytes+1))
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe) || n > archive.MaxBytes:
			return tooLarge
		case err != nil:
			return multipartError(err)
		}
		rep, err := s.Archive.Import(r.Context(), currentUser(r), f, n)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, rep)
		return nil
	}
}

// lazyAttachment is a download that sends its headers at its first byte, through a buffer.
type lazyAttachment struct {
	w                     http.ResponseWriter
	contentType, filename string
	started               bool
	buf                   *bufio.Writer
}

func (a *lazyAttachment) Write(p []byte) (int, error) {
	if !a.started {
		a.started = true
		h := a.w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Content-Disposition", `attachment; filename="`+a.filename+`"`)
		h.Set("Cache-Control", "no-store")
		a.w.WriteHeader(http.StatusOK)
		a.buf = bufio.NewWriterSize(a.w, 32<<10)
	}
	return a.buf.Write(p)
}

// finish sends what is buffered.
func (a *lazyAttachment) finish() error {
	if !a.started {
		return nil
	}
	return a.buf.Flush()
}
