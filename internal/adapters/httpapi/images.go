package httpapi

import (
	"context"
	"errors"
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

// Cache lifetimes of GET /images/{key}.
const (
	// imageCache is a full image's: its key may come to hold another object (a poster's
	// original is replaced by its conversion), so a day, revalidated by Last-Modified.
	imageCache = "public, max-age=86400"
	// thumbCache is a thumbnail's: its key derives from the source key and the width, and a
	// source key names one picture for life (see domain.ThumbKey), so it never changes.
	thumbCache = "public, max-age=31536000, immutable"
	// thumbFallbackCache is a thumbnail not made yet, answered with the full image: briefly, so
	// the browser asks again once the worker made it.
	thumbFallbackCache = "public, max-age=60"
)

// image serves GET /images/{key}: the stored object with its sniffed image type, conditional
// and range requests included. A thumbnail's key (domain.ThumbKey) the worker has not made yet
// is answered with the full image, so a page never shows a broken image.
func (s *Server) image(w http.ResponseWriter, r *http.Request) error {
	key := strings.TrimPrefix(r.URL.Path, "/images/")
	if s.Images == nil {
		return &httpError{Status: http.StatusNotFound, Message: "not found"}
	}
	file, cache, err := s.openImage(r.Context(), key)
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
	w.Header().Set("Cache-Control", cache)
	http.ServeContent(w, r, "", st.ModTime(), f)
	return nil
}

// openImage opens the object under key and says how long it may be cached. A missing thumbnail
// falls back to its source's full image: the WebP conversion, else the original.
func (s *Server) openImage(ctx context.Context, key string) (fs.File, string, error) {
	source, _, thumb := domain.ParseThumbKey(key)
	file, err := s.Images.Open(ctx, key)
	if !thumb {
		return file, imageCache, err
	}
	if err == nil {
		return file, thumbCache, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return nil, "", err
	}
	for _, k := range domain.FullImageKeys(source) {
		if file, err = s.Images.Open(ctx, k); !errors.Is(err, domain.ErrNotFound) {
			break
		}
	}
	return file, thumbFallbackCache, err
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
