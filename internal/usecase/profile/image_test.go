package profile_test

import (
	"bytes"
	"encoding/base64"
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
		{"too wide", "", encode(t, 8193, 1, pngEnc)},
		{"too many pixels", "", encode(t, 8000, 5001, pngEnc)},
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
