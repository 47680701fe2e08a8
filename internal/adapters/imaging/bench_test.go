package imaging_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"golang.org/x/image/draw"

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

// BenchmarkThumbnails measures one poster's thumbnails as the worker makes them: decode the w500
// JPEG once, resize (Catmull-Rom) to w185 and w342 and encode each as WebP q80. out/in is the
// bytes of both thumbnails over the source's.
func BenchmarkThumbnails(b *testing.B) {
	src := posterJPEG(b)
	enc := imaging.WebP{}
	widths := []int{185, 342}
	if _, err := enc.Thumbnails(src, widths); err != nil { // compiles the WebAssembly module
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	var out [][]byte
	for b.Loop() {
		var err error
		if out, err = enc.Thumbnails(src, widths); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out[0])+len(out[1]))/float64(len(src)), "out/in")
}

// BenchmarkResize compares the resamplers on a decoded w500 poster scaled to w185, the step
// Thumbnails chose Catmull-Rom for.
func BenchmarkResize(b *testing.B) {
	img, _, err := image.Decode(bytes.NewReader(posterJPEG(b)))
	if err != nil {
		b.Fatal(err)
	}
	for name, s := range map[string]draw.Scaler{
		"CatmullRom": draw.CatmullRom, "ApproxBiLinear": draw.ApproxBiLinear, "BiLinear": draw.BiLinear,
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				imaging.Resize(img, 185, s)
			}
		})
	}
}
