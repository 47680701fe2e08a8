package domain_test

import (
	"testing"

	"moviesdiary/internal/domain"
)

func TestThumbKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key    string
		widths []int
	}{
		{"posters/0b5c.webp", []int{185, 342}},
		{"posters/0b5c", []int{185, 342}},
		{"avatars/u/abcd.webp", []int{192}},
		{"backdrops/m.webp", []int{780}},
		{"people/p.webp", []int{185}},
		{"banners/u/abcd.webp", nil},
		{"posters/0b5c.avif", nil},
		{"posters/0b5c.w185.webp", nil},
		{"https://image.tmdb.org/t/p/w500/x.jpg", nil},
		{"plain", nil},
	} {
		got := domain.ThumbWidths(c.key)
		if len(got) != len(c.widths) {
			t.Errorf("ThumbWidths(%q) = %v, want %v", c.key, got, c.widths)
			continue
		}
		for i, w := range got {
			if w != c.widths[i] {
				t.Errorf("ThumbWidths(%q) = %v, want %v", c.key, got, c.widths)
			}
			thumb := domain.ThumbKey(c.key, w)
			src, width, ok := domain.ParseThumbKey(thumb)
			if !ok || width != w || domain.ThumbKey(src, width) != thumb || !domain.IsConvertedKey(thumb) {
				t.Errorf("ParseThumbKey(%q) = %q, %d, %v", thumb, src, width, ok)
			}
		}
	}
	// An image and its conversion share their thumbnails.
	if a, b := domain.ThumbKey("posters/x", 185), domain.ThumbKey("posters/x.webp", 185); a != b || a != "posters/x.w185.webp" {
		t.Errorf("thumb keys %q, %q", a, b)
	}
	for _, key := range []string{"posters/x.w186.webp", "posters/x.w0185.webp", "banners/x.w185.webp", "x.w185.webp",
		"posters/x.w185.jpg", "posters/x.webp", ".w185.webp"} {
		if _, _, ok := domain.ParseThumbKey(key); ok {
			t.Errorf("ParseThumbKey(%q) ok, want not a thumbnail", key)
		}
	}
}

func TestCheckImageSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w, h int
		ok   bool
	}{
		{1, 1, true}, {12_000, 3_333, true}, {8_000, 5_000, true},
		{0, 10, false}, {10, -1, false}, {12_001, 1, false}, {1, 12_001, false},
		{7_000, 7_000, false}, {20_000, 20_000, false}, {1 << 31, 1 << 31, false},
	} {
		err := domain.CheckImageSize(c.w, c.h)
		if (err == nil) != c.ok || (err != nil && domain.KindOf(err) != domain.KindInvalid) {
			t.Errorf("CheckImageSize(%d, %d) = %v", c.w, c.h, err)
		}
	}
}
