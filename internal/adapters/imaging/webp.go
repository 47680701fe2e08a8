// Package imaging re-encodes images for the image conversion handler.
//
// WebP encoding uses github.com/gen2brain/webp: libwebp compiled to WebAssembly and run by the
// pure-Go wazero runtime. It was chosen because it gives real lossy WebP (quality 80, like the
// original system) with nothing installed on the machine: the cgo bindings (chai2010/webp,
// kolesa-team/go-webp) need libwebp headers or a C build of it on every machine and in CI, and
// the pure-Go encoders are lossless only (large files for photos). The cost is speed — roughly
// 100 ms per poster instead of 20 ms — which is irrelevant for one conversion per poster. When
// the host happens to have libwebp's shared library, gen2brain/webp loads it instead (same
// output format, faster).
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

	"github.com/gen2brain/webp" // also registers the WebP decoder
)

// MaxPixelsDefault bounds a decoded image: a small file cannot claim a huge bitmap.
const MaxPixelsDefault = 40_000_000

// WebP encodes images as lossy WebP.
type WebP struct {
	// Quality is 1..100 (default 80); MaxPixels bounds the input (default MaxPixelsDefault).
	Quality   int
	MaxPixels int
}

// ErrNotImage is returned for input that is not a decodable image or is too large.
var ErrNotImage = errors.New("not a decodable image")

// Encode decodes a JPEG, PNG, GIF or WebP image and returns it as WebP.
func (w WebP) Encode(src []byte) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > cmp.Or(w.MaxPixels, MaxPixelsDefault) {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrNotImage, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotImage, err)
	}
	var out bytes.Buffer
	if err := webp.Encode(&out, img, webp.Options{Quality: cmp.Or(w.Quality, 80), Method: 4}); err != nil {
		return nil, fmt.Errorf("encode webp: %w", err)
	}
	return out.Bytes(), nil
}
