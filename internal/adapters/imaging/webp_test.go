package imaging_test

import (
	"bytes"
	"errors"
	"image"
	"net/http"
	"testing"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/adapters/tmdb/tmdbtest"
)

func TestEncodeJPEGToWebP(t *testing.T) {
	t.Parallel()
	out, err := imaging.WebP{}.Encode(tmdbtest.PosterJPEG())
	if err != nil {
		t.Fatal(err)
	}
	if ct := http.DetectContentType(out); ct != "image/webp" {
		t.Fatalf("output is %s", ct)
	}
	img, format, err := image.Decode(bytes.NewReader(out))
	if err != nil || format != "webp" || img.Bounds().Dx() != 40 || img.Bounds().Dy() != 60 {
		t.Fatalf("decoded output: %v %s %v", img.Bounds(), format, err)
	}
}

func TestEncodeRefusesNonImages(t *testing.T) {
	t.Parallel()
	for name, src := range map[string][]byte{
		"html":      []byte("<html>no</html>"),
		"truncated": tmdbtest.PosterJPEG()[:20],
		"empty":     nil,
	} {
		if _, err := (imaging.WebP{}).Encode(src); !errors.Is(err, imaging.ErrNotImage) {
			t.Errorf("%s: %v, want ErrNotImage", name, err)
		}
	}
	if _, err := (imaging.WebP{MaxPixels: 100}).Encode(tmdbtest.PosterJPEG()); !errors.Is(err, imaging.ErrTooLarge) {
		t.Errorf("over MaxPixels: %v", err)
	}
}
