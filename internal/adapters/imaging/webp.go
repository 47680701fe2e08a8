// Package imaging decodes, resizes and re-encodes images for the image handlers: the WebP
// conversion and the thumbnails.
//
// WebP encoding uses github.com/gen2brain/webp: libwebp compiled to WebAssembly and run by the
// pure-Go wazero runtime. It was chosen because it gives real lossy WebP (quality 80, like the
// original system) with nothing installed on the machine: the cgo bindings (chai2010/webp,
// kolesa-team/go-webp) need libwebp headers or a C build of it on every machine and in CI, and
// the pure-Go encoders are lossless only (large files for photos). The cost is speed — roughly
// 100 ms per poster instead of 20 ms — which is irrelevant for one conversion per poster. When
// the host happens to have libwebp's shared library, gen2brain/webp loads it instead (same
// output format, faster).
//
// Every decode is bounded: the header is read first (image.DecodeConfig) and an image over
// domain.CheckImageSize's limits is refused before a pixel is allocated.
package imaging

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decoders of what may be stored
	_ "image/jpeg"
	_ "image/png"
	"io"

	"github.com/gen2brain/webp" // also registers the WebP decoder

	"moviesdiary/internal/domain"
)

// MaxPixelsDefault bounds a decoded image: a small file cannot claim a huge bitmap.
const MaxPixelsDefault = domain.MaxImagePixels

// WebP encodes images as lossy WebP.
type WebP struct {
	// Quality is 1..100 (default 80); MaxPixels bounds the input below domain.MaxImagePixels
	// (default MaxPixelsDefault; it cannot raise the domain's limit).
	Quality   int
	MaxPixels int
}

var (
	// ErrNotImage is returned for input that is not a decodable image.
	ErrNotImage = errors.New("not a decodable image")
	// ErrTooLarge is returned for an image whose header claims more pixels than allowed; its
	// error also matches domain.ErrInvalid and names the limit.
	ErrTooLarge = errors.New("image too large")
)

// Encode decodes a JPEG, PNG, GIF or WebP image and returns it as WebP.
func (w WebP) Encode(src []byte) ([]byte, error) {
	img, err := w.decode(src)
	if err != nil {
		return nil, err
	}
	return w.encode(img)
}

// decode decodes src after checking its header against the bounds, so an image over them is
// refused without its pixels ever being allocated.
func (w WebP) decode(src []byte) (image.Image, error) {
	cfg, err := w.check(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotImage, err)
	}
	// A decoder must honour its own header; refuse one that did not rather than resize it.
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, fmt.Errorf("%w: header says %d×%d, pixels are %d×%d", ErrNotImage, cfg.Width, cfg.Height, b.Dx(), b.Dy())
	}
	return img, nil
}

// check reads only the header of the image r holds and refuses what is not an image or is over
// the bounds; it never decodes pixels.
func (w WebP) check(r io.Reader) (image.Config, error) {
	cfg, _, err := image.DecodeConfig(r)
	if err != nil {
		return cfg, fmt.Errorf("%w: %w", ErrNotImage, err)
	}
	err = domain.CheckImageSize(cfg.Width, cfg.Height)
	if err == nil && cfg.Width*cfg.Height > cmp.Or(w.MaxPixels, MaxPixelsDefault) {
		err = domain.Invalid("the image is %d×%d pixels; at most %d pixels in all are accepted", cfg.Width, cfg.Height, w.MaxPixels)
	}
	if err != nil {
		return cfg, fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return cfg, nil
}

func (w WebP) encode(img image.Image) ([]byte, error) {
	var out bytes.Buffer
	if err := webp.Encode(&out, img, webp.Options{Quality: cmp.Or(w.Quality, 80), Method: 4}); err != nil {
		return nil, fmt.Errorf("encode webp: %w", err)
	}
	return out.Bytes(), nil
}
