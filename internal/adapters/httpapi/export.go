package httpapi

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/usecase/review"
)

// exportFlushEvery is how many rows go out between flushes, so a long export streams.
const exportFlushEvery = review.ExportBatch

// exportDiary streams the caller's whole diary as CSV, JSON or Letterboxd's import CSV, an attachment. Rows go out as they
// are read, a batch at a time, so memory stays flat however long the diary is. Nothing is
// written before the first row is read, so a failure then is still a JSON error; a failure
// after that aborts the response (a truncated download, never one that looks complete).
func (s *Server) exportDiary(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "csv"
	}
	if format != "csv" && format != "json" && format != "letterboxd" {
		return badRequest(fmt.Sprintf("unsupported export format %q: use csv, json or letterboxd", format))
	}
	out := &exportStream{w: w, format: format}
	err := s.Export.Export(r.Context(), currentUser(r), out.write)
	if err == nil {
		err = out.finish()
	}
	if err != nil && out.started {
		s.log.ErrorContext(r.Context(), "diary export aborted", "error", err,
			"request_id", middleware.GetReqID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	return err
}

// exportStream writes export rows, starting the response at the first one.
type exportStream struct {
	w       http.ResponseWriter
	format  string
	started bool
	rows    int
	buf     *bufio.Writer
	csv     *csv.Writer
	json    *json.Encoder
}

func (x *exportStream) start() error {
	x.started = true
	h := x.w.Header()
	name := "diary." + x.format
	switch x.format {
	case "json":
		h.Set("Content-Type", "application/json")
	case "letterboxd":
		name = "diary-letterboxd.csv"
		h.Set("Content-Type", "text/csv; charset=utf-8")
	default:
		h.Set("Content-Type", "text/csv; charset=utf-8")
	}
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	x.w.WriteHeader(http.StatusOK)
	x.buf = bufio.NewWriterSize(x.w, 32<<10)
	switch x.format {
	case "csv":
		x.csv = csv.NewWriter(x.buf)
		return x.csv.Write(review.ExportHeader)
	case "letterboxd":
		x.csv = csv.NewWriter(x.buf)
		return x.csv.Write(review.LetterboxdHeader)
	}
	x.json = json.NewEncoder(x.buf)
	_, err := x.buf.WriteString("[")
	return err
}

func (x *exportStream) write(e review.Entry) error {
	if !x.started {
		if err := x.start(); err != nil {
			return err
		}
	}
	var err error
	switch {
	case x.format == "letterboxd":
		err = x.csv.Write(review.LetterboxdRecord(e))
	case x.csv != nil:
		err = x.csv.Write(review.NewExportRow(e).Record())
	default:
		if x.rows > 0 {
			if _, err = x.buf.WriteString(","); err != nil {
				return err
			}
		}
		err = x.json.Encode(review.NewExportRow(e))
	}
	if err != nil {
		return err
	}
	if x.rows++; x.rows%exportFlushEvery == 0 {
		return x.flush()
	}
	return nil
}

// finish ends the document: an empty diary is the header alone, or [].
func (x *exportStream) finish() error {
	if !x.started {
		if err := x.start(); err != nil {
			return err
		}
	}
	if x.json != nil {
		if _, err := x.buf.WriteString("]\n"); err != nil {
			return err
		}
	}
	return x.flush()
}

func (x *exportStream) flush() error {
	if x.csv != nil {
		x.csv.Flush()
		if err := x.csv.Error(); err != nil {
			return err
		}
	}
	if err := x.buf.Flush(); err != nil {
		return err
	}
	if err := http.NewResponseController(x.w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
