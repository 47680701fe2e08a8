package profile_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/profile"
)

func encode(t *testing.T, w, h int, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngClaiming is a 1×1 PNG whose header claims w×h: DecodeConfig reads only the header, so
// the size checks need no real large image.
func pngClaiming(t *testing.T, w, h uint32) []byte {
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

func TestCheckImage(t *testing.T) {
	t.Parallel()
	pngEnc := func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) }
	jpegEnc := func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }
	webp, _ := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	for _, c := range []struct {
		name, format string
		data         []byte
	}{
		{"png", "png", encode(t, 8, 8, pngEnc)},
		{"jpeg", "jpeg", encode(t, 8, 8, jpegEnc)},
		{"webp", "webp", webp},
		{"gif", "", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")},
		{"svg", "", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		{"empty", "", nil},
		{"truncated png", "", encode(t, 8, 8, pngEnc)[:16]},
		{"at the limit", "png", pngClaiming(t, 8000, 5000)},
		{"a side at the limit", "png", pngClaiming(t, 12_000, 3_000)},
		{"too wide", "", pngClaiming(t, 12_001, 1)},
		{"too tall", "", pngClaiming(t, 1, 12_001)},
		{"too many pixels", "", pngClaiming(t, 8000, 5001)},
		{"a pixel bomb", "", pngClaiming(t, 20_000, 20_000)},
		{"too large", "", append(encode(t, 8, 8, pngEnc), make([]byte, profile.MaxImageBytes)...)},
	} {
		format, err := profile.CheckImage(profile.AvatarKind, c.data)
		if c.format != "" && (err != nil || format != c.format) {
			t.Errorf("%s: CheckImage = %q, %v; want %q", c.name, format, err, c.format)
		}
		if c.format == "" && domain.KindOf(err) != domain.KindInvalid {
			t.Errorf("%s: CheckImage = %q, %v; want KindInvalid", c.name, format, err)
		}
	}
}
