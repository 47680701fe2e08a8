package imaging_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"runtime"
	"testing"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/domain"
)

// pngOf is a w×h PNG with a gradient (a flat image would hide resampling errors).
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: uint8(x ^ y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngClaiming is a 1×1 PNG whose header claims w×h (the CRC fixed up, so the header is valid):
// a pixel bomb of 57 bytes. Decoding it would allocate the claimed bitmap before reading a row.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), 5 more bytes, CRC (4)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func decodeWebP(t *testing.T, data []byte) image.Image {
	t.Helper()
	if ct := http.DetectContentType(data); ct != "image/webp" {
		t.Fatalf("thumbnail is %s", ct)
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil || format != "webp" {
		t.Fatalf("thumbnail does not decode as WebP: %s %v", format, err)
	}
	return img
}

func TestThumbnailsKeepTheAspectRatio(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		w, h       int
		widths     []int
		wantW      []int
		wantH      []int
		sourceSize bool
	}{
		{name: "poster", w: 500, h: 750, widths: []int{185, 342}, wantW: []int{185, 342}, wantH: []int{278, 513}},
		{name: "backdrop", w: 1280, h: 720, widths: []int{780}, wantW: []int{780}, wantH: []int{439}},
		{name: "square avatar", w: 400, h: 400, widths: []int{192}, wantW: []int{192}, wantH: []int{192}},
		{name: "narrower than the width is not enlarged", w: 120, h: 180, widths: []int{185, 342},
			wantW: []int{120, 120}, wantH: []int{180, 180}},
		{name: "a sliver keeps a row", w: 4000, h: 3, widths: []int{185}, wantW: []int{185}, wantH: []int{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := imaging.WebP{}.Thumbnails(pngOf(t, c.w, c.h), c.widths)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(c.widths) {
				t.Fatalf("%d thumbnails for %d widths", len(out), len(c.widths))
			}
			for i, data := range out {
				b := decodeWebP(t, data).Bounds()
				if b.Dx() != c.wantW[i] || b.Dy() != c.wantH[i] {
					t.Errorf("width %d: %d×%d, want %d×%d", c.widths[i], b.Dx(), b.Dy(), c.wantW[i], c.wantH[i])
				}
			}
		})
	}
}

// TestThumbnailKeepsThePicture: the thumbnail of a half-red, half-blue image is still red on the
// left and blue on the right (the resampler draws the image, not garbage or a crop).
func TestThumbnailKeepsThePicture(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 400, 600))
	for y := range 600 {
		for x := range 400 {
			c := color.RGBA{R: 220, A: 255}
			if x >= 200 {
				c = color.RGBA{B: 220, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out, err := imaging.WebP{}.Thumbnails(buf.Bytes(), []int{100})
	if err != nil {
		t.Fatal(err)
	}
	thumb := decodeWebP(t, out[0])
	for _, p := range []struct {
		x, y  int
		red   bool
		label string
	}{{10, 75, true, "left"}, {90, 75, false, "right"}} {
		r, _, b, _ := thumb.At(p.x, p.y).RGBA()
		if (r > b) != p.red {
			t.Errorf("%s side: r=%d b=%d", p.label, r>>8, b>>8)
		}
	}
}

// TestPixelBombIsRefusedWithoutDecoding: a 57-byte PNG claiming 20,000 × 20,000 pixels is
// refused from its header. Decoding it would allocate 400 MB (gray) before the first row; the
// test runs alone (not parallel) and shows the whole refusal allocates under 1 MB.
func TestPixelBombIsRefusedWithoutDecoding(t *testing.T) {
	bomb := pngClaiming(t, 20_000, 20_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, errThumb := imaging.WebP{}.Thumbnails(bomb, []int{185})
	_, errEncode := imaging.WebP{}.Encode(bomb)
	runtime.ReadMemStats(&after)
	for name, err := range map[string]error{"Thumbnails": errThumb, "Encode": errEncode} {
		if !errors.Is(err, imaging.ErrTooLarge) || !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("%s: %v, want ErrTooLarge (KindInvalid)", name, err)
		}
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes; decoding was attempted", n)
	}
	// Each limit on its own: a side over 12,000 and an area over 40 megapixels.
	for _, dims := range [][2]uint32{{12_001, 10}, {10, 12_001}, {7_000, 7_000}} {
		if _, err := (imaging.WebP{}).Thumbnails(pngClaiming(t, dims[0], dims[1]), []int{185}); !errors.Is(err, imaging.ErrTooLarge) {
			t.Errorf("%d×%d: %v, want ErrTooLarge", dims[0], dims[1], err)
		}
	}
}

func TestThumbnailsOfNonImages(t *testing.T) {
	t.Parallel()
	for name, src := range map[string][]byte{
		"html":      []byte("<html>no</html>"),
		"truncated": pngOf(t, 50, 50)[:60],
		"empty":     nil,
	} {
		if _, err := (imaging.WebP{}).Thumbnails(src, []int{185}); !errors.Is(err, imaging.ErrNotImage) {
			t.Errorf("%s: %v, want ErrNotImage", name, err)
		}
	}
}
