package web

import (
	"bufio"
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/usecase/review"
)

// exportHeader is the CSV export's header, the same as GET /api/v1/diary/export?format=csv (the
// original's, byte for byte).
var exportHeader = []string{"title", "year", "director", "rating", "comment", "watched_at", "external_metadata_id"}

// exportDiary streams the viewer's whole diary as a CSV attachment through the exporter the API
// uses. The API's download wants a bearer token, which a browser with the session cookie does
// not send, hence this route. Nothing is written before the first row, so an early failure is
// an error page; a failure after it aborts the response, never a download that looks complete.
func (s *Server) exportDiary(w http.ResponseWriter, r *http.Request, v visit) error {
	var (
		buf  *bufio.Writer
		out  *csv.Writer
		rows int
	)
	start := func() error {
		h := w.Header()
		h.Set("Content-Type", "text/csv; charset=utf-8")
		h.Set("Content-Disposition", `attachment; filename="diary.csv"`)
		w.WriteHeader(http.StatusOK)
		buf = bufio.NewWriterSize(w, 32<<10)
		out = csv.NewWriter(buf)
		return out.Write(exportHeader)
	}
	flush := func() error {
		out.Flush()
		if err := out.Error(); err != nil {
			return err
		}
		return buf.Flush()
	}
	err := s.Export.Export(r.Context(), v.me.ID, func(e review.Entry) error {
		if out == nil {
			if err := start(); err != nil {
				return err
			}
		}
		if err := out.Write(exportRecord(e)); err != nil {
			return err
		}
		if rows++; rows%review.ExportBatch == 0 {
			return flush()
		}
		return nil
	})
	if err == nil && out == nil {
		err = start()
	}
	if err == nil {
		err = flush()
	}
	if err != nil && out != nil {
		s.log.ErrorContext(r.Context(), "diary export aborted", "error", err, "request_id", middleware.GetReqID(r.Context()))
		panic(http.ErrAbortHandler)
	}
	return err
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
