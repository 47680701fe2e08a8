package web

import (
	"bufio"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/archive"
)

// maxArchiveForm is the largest archive upload form: the archive at its limit and the form.
const maxArchiveForm = archive.MaxBytes + 64<<10

// downloadArchive streams the viewer's account archive (the API's, for a browser signed in with
// its session cookie). Nothing is written before the archive's first byte; a failure after it
// aborts the response.
func (s *Server) downloadArchive(w http.ResponseWriter, r *http.Request, v visit) error {
	out := &archiveStream{w: w}
	err := s.Archive.Export(r.Context(), v.me.ID, out)
	if err == nil && out.started {
		err = out.buf.Flush()
	}
	if err != nil && out.started {
		s.log.ErrorContext(r.Context(), "account archive aborted", "error", err, "request_id", middleware.GetReqID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	return err
}

// archiveStream sends the download's headers at its first byte.
type archiveStream struct {
	w       http.ResponseWriter
	buf     *bufio.Writer
	started bool
}

func (a *archiveStream) Write(p []byte) (int, error) {
	if !a.started {
		a.started = true
		h := a.w.Header()
		h.Set("Content-Type", "application/zip")
		h.Set("Content-Disposition", `attachment; filename="moviesdiary-archive-`+time.Now().UTC().Format("2006-01-02")+`.zip"`)
		h.Set("Cache-Control", "no-store")
		a.w.WriteHeader(http.StatusOK)
		a.buf = bufio.NewWriterSize(a.w, 32<<10)
	}
	return a.buf.Write(p)
}

// importArchive reads an uploaded account archive into the viewer's account and shows what it
// did on the settings page; a bad archive is refused there with its reason, nothing written.
func (s *Server) importArchive(w http.ResponseWriter, r *http.Request, v visit) error {
	f, hdr, err := r.FormFile("file")
	if err != nil {
		return s.refusedSettings(w, r, v, domain.Invalid("Choose an account archive (.zip) to import."))
	}
	defer f.Close()
	rep, err := s.Archive.Import(r.Context(), v.me.ID, f, hdr.Size)
	if err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return s.renderSettings(w, r, v, http.StatusOK, formState{}, func(d *settingsPage) { d.ArchiveReport = &rep })
}
