package imaging_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"moviesdiary/internal/adapters/imaging"
)

// posterJPEG is a 500×750 JPEG (TMDb's w500 poster size) with enough detail to encode like a
// photo.
func posterJPEG(b *testing.B) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 500, 750))
	for y := range 750 {
		for x := range 500 {
			img.Set(x, y, color.RGBA{R: uint8(x*y/7 + x), G: uint8(y*3 ^ x), B: uint8((x + y) * 5 / 3), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkWebPPoster measures one poster conversion (decode JPEG, encode WebP q80).
func BenchmarkWebPPoster(b *testing.B) {
	src := posterJPEG(b)
	enc := imaging.WebP{}
	if _, err := enc.Encode(src); err != nil { // the first call compiles the WebAssembly module
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	var out []byte
	for b.Loop() {
		var err error
		if out, err = enc.Encode(src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out))/float64(len(src)), "out/in")
}
