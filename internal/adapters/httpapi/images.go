package httpapi

import (
	"io"
	"net/http"
	"os"
	"strings"
)

// ImageStore opens stored images by key; a malformed key is KindInvalid and a missing one
// KindNotFound. The store itself confines keys to its directory.
type ImageStore interface {
	Open(key string) (*os.File, error)
}

// servedImageTypes are the only types GET /images/{key} answers with: whatever else a file
// holds is not served, so the image directory cannot serve a page or a script.
var servedImageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/webp": true, "image/gif": true}

// image serves GET /images/{key}: the stored object with its sniffed image type, conditional
// and range requests included.
func (s *Server) image(w http.ResponseWriter, r *http.Request) error {
	key := strings.TrimPrefix(r.URL.Path, "/images/")
	if s.Images == nil {
		return &httpError{Status: http.StatusNotFound, Message: "not found"}
	}
	f, err := s.Images.Open(key)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	ct := http.DetectContentType(head[:n])
	if !servedImageTypes[ct] {
		return &httpError{Status: http.StatusNotFound, Message: "not found"}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, "", st.ModTime(), f)
	return nil
}
