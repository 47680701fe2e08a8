package httpapi

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
)

// ImageStore opens stored images by key for streaming; a malformed key is KindInvalid and a
// missing one KindNotFound. The store itself confines keys (to its directory or bucket). The
// file it returns must also seek (an *os.File, an S3 object), and its Stat gives the size and
// modification time; ctx bounds the whole read.
type ImageStore interface {
	Open(ctx context.Context, key string) (fs.File, error)
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
	file, err := s.Images.Open(r.Context(), key)
	if err != nil {
		return s.imageStoreFailure(w, r, err)
	}
	defer file.Close()
	f, ok := file.(io.ReadSeeker)
	if !ok {
		return fmt.Errorf("image store: %T does not seek", file)
	}
	st, err := file.Stat()
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

// ImageStoreRetryAfter is the Retry-After, in seconds, of a GET /images/{key} the image storage
// could not answer.
const ImageStoreRetryAfter = 5

// imageStoreFailure answers an image the storage could not open: a malformed or missing key as
// its kind says (400, 404); anything else is the storage failing (an S3 endpoint down or timing
// out, a disk error) — 503 with Retry-After, so a browser or proxy tries again, and a warning
// for the operator with the cause.
func (s *Server) imageStoreFailure(w http.ResponseWriter, r *http.Request, err error) error {
	if k := domain.KindOf(err); k == domain.KindInvalid || k == domain.KindNotFound {
		return err
	}
	s.log.WarnContext(r.Context(), "image storage unavailable", "error", err, "path", r.URL.Path)
	w.Header().Set("Retry-After", strconv.Itoa(ImageStoreRetryAfter))
	return &httpError{Status: http.StatusServiceUnavailable, Message: "image storage unavailable"}
}
