package image_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	stdimage "image"
	"image/color"
	"image/jpeg"
	"image/png"
	"sync/atomic"
	"testing"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/image"
)

// posterW500 is a 500×750 JPEG, TMDb's w500 poster size.
func posterW500(t *testing.T) []byte {
	t.Helper()
	img := stdimage.NewRGBA(stdimage.Rect(0, 0, 500, 750))
	for y := range 750 {
		for x := range 500 {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: uint8(x ^ y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type thumbBundle struct {
	*bundle
	thumbs *image.Thumbnails
	makes  atomic.Int32
}

// thumbSetup is setup with a w500 poster stored under the movie's poster key.
func thumbSetup(t *testing.T, opts ...mediatest.Option) *thumbBundle {
	t.Helper()
	b := &thumbBundle{bundle: setup(t, opts...)}
	if err := b.Images.Put(context.Background(), b.key, posterW500(t)); err != nil {
		t.Fatal(err)
	}
	b.thumbs = image.NewThumbnails(b.Objects, func(src []byte, widths []int) ([][]byte, error) {
		b.makes.Add(1)
		return imaging.WebP{}.Thumbnails(src, widths)
	}, b.Log)
	return b
}

// thumbnailed checks both poster thumbnails are stored under their deterministic keys, each
// written once, at their widths, and were made in makes decodes.
func (b *thumbBundle) thumbnailed(t *testing.T, makes int32) {
	t.Helper()
	for _, c := range []struct {
		key  string
		w, h int
	}{
		{"posters/" + b.movie.String() + ".w185.webp", 185, 278},
		{"posters/" + b.movie.String() + ".w342.webp", 342, 513},
	} {
		data, err := b.Images.Get(context.Background(), c.key)
		if err != nil {
			t.Fatalf("thumbnail %s: %v", c.key, err)
		}
		cfg, format, err := stdimage.DecodeConfig(bytes.NewReader(data))
		if err != nil || format != "webp" || cfg.Width != c.w || cfg.Height != c.h {
			t.Errorf("thumbnail %s: %s %d×%d %v, want webp %d×%d", c.key, format, cfg.Width, cfg.Height, err, c.w, c.h)
		}
		if n := b.Objects.Puts(c.key); n != 1 {
			t.Errorf("%s written %d times, want once", c.key, n)
		}
	}
	if n := b.makes.Load(); n != makes {
		t.Errorf("decoded %d times, want %d", n, makes)
	}
}

func TestThumbnailsTwice(t *testing.T) {
	t.Parallel()
	b := thumbSetup(t)
	ctx := context.Background()
	for range 2 {
		if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
			t.Fatal(err)
		}
	}
	b.thumbnailed(t, 1)
	// The conversion runs; the converted key (the backfill's) has the same thumbnails, already made.
	if err := b.conv.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
		t.Fatal(err)
	}
	if err := b.thumbs.Generate(ctx, domain.ConvertedKey(b.key)); err != nil {
		t.Fatal(err)
	}
	b.thumbnailed(t, 1)
}

// TestThumbnailsAfterTheConversion: the conversion ran first and deleted the original; the
// thumbnails are made from the WebP, on both image stores.
func TestThumbnailsAfterTheConversion(t *testing.T) {
	t.Parallel()
	for name, opts := range mediatest.Stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := thumbSetup(t, opts...)
			ctx := context.Background()
			if err := b.conv.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
				t.Fatal(err)
			}
			if b.exists(b.key) {
				t.Fatal("the conversion left the original")
			}
			if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
				t.Fatal(err)
			}
			b.thumbnailed(t, 1)
		})
	}
}

// TestThumbnailsOnlyTheMissingOne: a crash after the first thumbnail was written leaves the
// second for the re-run, which makes only that one.
func TestThumbnailsOnlyTheMissingOne(t *testing.T) {
	t.Parallel()
	b := thumbSetup(t)
	ctx := context.Background()
	b.Objects.FailAt("after-put")
	if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: b.key}); err == nil || domain.IsPermanent(err) {
		t.Fatalf("injected failure: %v, want a transient error", err)
	}
	b.Objects.FailAt("")
	var widths []int
	b.thumbs = image.NewThumbnails(b.Objects, func(src []byte, w []int) ([][]byte, error) {
		b.makes.Add(1)
		widths = append(widths, w...)
		return imaging.WebP{}.Thumbnails(src, w)
	}, b.Log)
	if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
		t.Fatal(err)
	}
	if len(widths) != 1 || widths[0] != 342 {
		t.Errorf("re-run made widths %v, want only 342", widths)
	}
	b.thumbnailed(t, 2)
}

func TestThumbnailsOfAMissingImage(t *testing.T) {
	t.Parallel()
	b := thumbSetup(t)
	ctx := context.Background()
	if err := b.Images.Delete(ctx, b.key); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{b.key, "https://remote.example/p.jpg", "banners/u/abc", "posters/x.w185.webp"} {
		if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: key}); err != nil {
			t.Errorf("ImageStored{%q}: %v, want done", key, err)
		}
	}
	if n := b.makes.Load(); n != 0 {
		t.Errorf("decoded %d times, want none", n)
	}
	if b.exists(domain.ThumbKey(b.key, 185)) {
		t.Error("thumbnail of a missing image written")
	}
}

// TestThumbnailsOfBadImagesArePermanent: garbage and a pixel bomb dead-letter at once (no retry
// loop) and write nothing.
func TestThumbnailsOfBadImagesArePermanent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := png.Encode(&buf, stdimage.NewGray(stdimage.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	bomb := buf.Bytes()
	binary.BigEndian.PutUint32(bomb[16:], 20_000)
	binary.BigEndian.PutUint32(bomb[20:], 20_000)
	binary.BigEndian.PutUint32(bomb[29:], crc32.ChecksumIEEE(bomb[12:29]))
	for name, data := range map[string][]byte{"garbage": []byte("<html>not an image</html>"), "bomb": bomb} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := thumbSetup(t)
			if err := b.Images.Put(context.Background(), b.key, data); err != nil {
				t.Fatal(err)
			}
			err := b.thumbs.Handle(context.Background(), domain.ImageStored{Key: b.key})
			if !domain.IsPermanent(err) {
				t.Fatalf("%v, want a permanent error", err)
			}
			if name == "bomb" && (!errors.Is(err, imaging.ErrTooLarge) || !errors.Is(err, domain.ErrInvalid)) {
				t.Errorf("bomb: %v, want the size limit named", err)
			}
			if b.exists(domain.ThumbKey(b.key, 185)) {
				t.Error("a thumbnail was written")
			}
		})
	}
}

// TestCleanupDeletesThumbnails: a deleted movie's thumbnails go with its poster; a poster in
// use again keeps them.
func TestCleanupDeletesThumbnails(t *testing.T) {
	t.Parallel()
	b := thumbSetup(t)
	ctx := context.Background()
	if err := b.thumbs.Handle(ctx, domain.ImageStored{Key: b.key}); err != nil {
		t.Fatal(err)
	}
	if err := b.cleanup.Handle(ctx, domain.MovieDeleted{MovieID: b.movie, PosterPath: &b.key}); err != nil {
		t.Fatal(err)
	}
	if !b.exists(domain.ThumbKey(b.key, 185)) {
		t.Fatal("clean-up deleted the thumbnails of a poster in use")
	}
	b.Exec(`DELETE FROM movies`)
	for range 2 {
		if err := b.cleanup.Handle(ctx, domain.MovieDeleted{MovieID: b.movie, PosterPath: &b.key}); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range domain.ThumbWidths(b.key) {
		if b.exists(domain.ThumbKey(b.key, w)) {
			t.Errorf("thumbnail w%d left after clean-up", w)
		}
	}
}
