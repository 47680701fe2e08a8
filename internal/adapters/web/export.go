package web

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// exportDiary streams the viewer's whole diary as a CSV (?format=csv, the default), JSON
// (?format=json) or Letterboxd import CSV (?format=letterboxd) attachment through the exporter the API uses, in the API's shapes. The API's
// download wants a bearer token, which a browser with the session cookie does not send, hence this
// route. Nothing is written before the first row, so an early failure is an error page; a
// failure after it aborts the response, never a download that looks complete.
func (s *Server) exportDiary(w http.ResponseWriter, r *http.Request, v visit) error {
	format := cmp.Or(r.URL.Query().Get("format"), "csv")
	if format != "csv" && format != "json" && format != "letterboxd" {
		return domain.Invalid("Unsupported export format %q: choose CSV, JSON or Letterboxd.", format)
	}
	x := &exportStream{w: w, json: format == "json", letterboxd: format == "letterboxd"}
	err := s.Export.Export(r.Context(), v.me.ID, x.write)
	if err == nil {
		err = x.finish()
	}
	if err != nil && x.buf != nil {
		s.log.ErrorContext(r.Context(), "diary export aborted", "error", err, "request_id", middleware.GetReqID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	return err
}

// exportStream writes the export's rows, starting the response at the first one.
type exportStream struct {
	w          http.ResponseWriter
	json       bool
	letterboxd bool
	rows       int
	buf        *bufio.Writer
	csv        *csv.Writer
	enc        *json.Encoder
}

func (x *exportStream) start() error {
	h := x.w.Header()
	name := "diary.csv"
	h.Set("Content-Type", "text/csv; charset=utf-8")
	if x.letterboxd {
		name = "diary-letterboxd.csv"
	}
	if x.json {
		name = "diary.json"
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	x.w.WriteHeader(http.StatusOK)
	x.buf = bufio.NewWriterSize(x.w, 32<<10)
	if x.json {
		x.enc = json.NewEncoder(x.buf)
		return x.buf.WriteByte('[')
	}
	x.csv = csv.NewWriter(x.buf)
	if x.letterboxd {
		return x.csv.Write(review.LetterboxdHeader)
	}
	return x.csv.Write(review.ExportHeader)
}

func (x *exportStream) write(e review.Entry) error {
	if x.buf == nil {
		if err := x.start(); err != nil {
			return err
		}
	}
	var err error
	if x.json {
		if x.rows > 0 {
			if err := x.buf.WriteByte(','); err != nil {
				return err
			}
		}
		err = x.enc.Encode(review.NewExportRow(e))
	} else if x.letterboxd {
		err = x.csv.Write(review.LetterboxdRecord(e))
	} else {
		err = x.csv.Write(review.NewExportRow(e).Record())
	}
	if err != nil {
		return err
	}
	if x.rows++; x.rows%review.ExportBatch == 0 {
		return x.flush()
	}
	return nil
}

// finish ends the document: an empty diary is the CSV header alone, or [].
func (x *exportStream) finish() error {
	if x.buf == nil {
		if err := x.start(); err != nil {
			return err
		}
	}
	if x.json {
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
	return x.buf.Flush()
}
