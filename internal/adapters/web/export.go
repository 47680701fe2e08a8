package web

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// exportHeader is the CSV export's header, the same as GET /api/v1/diary/export?format=csv (the
// original's, byte for byte).
var exportHeader = []string{"title", "year", "director", "rating", "comment", "watched_at", "external_metadata_id"}

// exportDiary streams the viewer's whole diary as a CSV (?format=csv, the default) or JSON
// (?format=json) attachment through the exporter the API uses, in the API's shapes. The API's
// download wants a bearer token, which a browser with the session cookie does not send, hence this
// route. Nothing is written before the first row, so an early failure is an error page; a
// failure after it aborts the response, never a download that looks complete.
func (s *Server) exportDiary(w http.ResponseWriter, r *http.Request, v visit) error {
	format := cmp.Or(r.URL.Query().Get("format"), "csv")
	if format != "csv" && format != "json" {
		return domain.Invalid("Unsupported export format %q: choose CSV or JSON.", format)
	}
	x := &exportStream{w: w, json: format == "json"}
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
	w    http.ResponseWriter
	json bool
	rows int
	buf  *bufio.Writer
	csv  *csv.Writer
	enc  *json.Encoder
}

func (x *exportStream) start() error {
	h := x.w.Header()
	name := "diary.csv"
	h.Set("Content-Type", "text/csv; charset=utf-8")
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
	return x.csv.Write(exportHeader)
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
		err = x.enc.Encode(exportJSON(e))
	} else {
		err = x.csv.Write(exportRecord(e))
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

// exportEntry is one review of the JSON export, the API's shape (GET
// /api/v1/diary/export?format=json): watched_at is the date.
type exportEntry struct {
	Title              string  `json:"title"`
	Year               int     `json:"year"`
	Director           *string `json:"director"`
	Rating             int     `json:"rating"`
	Comment            *string `json:"comment"`
	WatchedAt          string  `json:"watched_at"`
	ExternalMetadataID *string `json:"external_metadata_id"`
}

func exportJSON(e review.Entry) exportEntry {
	return exportEntry{Title: e.Movie.Title, Year: e.Movie.ReleaseYear, Director: e.Movie.Director, Rating: e.Review.Rating,
		Comment: e.Review.Comment, WatchedAt: e.Review.WatchedAt.UTC().Format("2006-01-02"), ExternalMetadataID: e.Movie.ExternalID}
}

// exportRecord is one review as a CSV row: the date watched, the year empty when unknown.
func exportRecord(e review.Entry) []string {
	year := ""
	if e.Movie.ReleaseYear > 0 {
		year = strconv.Itoa(e.Movie.ReleaseYear)
	}
	return []string{e.Movie.Title, year, deref(e.Movie.Director), strconv.Itoa(e.Review.Rating), deref(e.Review.Comment),
		e.Review.WatchedAt.UTC().Format("2006-01-02"), deref(e.Movie.ExternalID)}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
