package profile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	_ "image/jpeg" // registers the JPEG header decoder CheckImage reads
	_ "image/png"  // registers PNG

	"github.com/google/uuid"
	_ "golang.org/x/image/webp" // registers WebP

	"moviesdiary/internal/domain"
)

// The images a profile has.
const (
	AvatarKind = "avatar"
	BannerKind = "banner"
)

// MaxImageBytes is the largest avatar or banner accepted (the original's 2 MB).
const MaxImageBytes = 2 << 20

// CheckImage checks an upload is a JPEG, PNG or WebP image (read from its content, never from
// what the client claims) of a sane size, and returns its format ("jpeg", "png" or "webp"). Only
// the header is read: an image over domain.CheckImageSize's bounds (a small, highly compressed
// file claiming 20,000 × 20,000 pixels, which the worker's conversion would have to allocate) is
// refused with a message naming the limit, before anything is stored.
func CheckImage(kind string, data []byte) (string, error) {
	if len(data) > MaxImageBytes {
		return "", domain.Invalid("%s exceeds %d bytes", kind, MaxImageBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || (format != "jpeg" && format != "png" && format != "webp") {
		return "", domain.Invalid("%ss must be jpeg, png, or webp", kind)
	}
	if err := domain.CheckImageSize(cfg.Width, cfg.Height); err != nil {
		return "", domain.Invalid("%s: %s", kind, err.Error())
	}
	return format, nil
}

// imageKey is where an upload's original is stored: under the user and the kind, named by its
// content's hash, so a retried upload writes the same object. A WebP keeps the .webp suffix,
// which tells the conversion it has nothing to do.
func imageKey(kind string, user uuid.UUID, data []byte, format string) string {
	sum := sha256.Sum256(data)
	key := kind + "s/" + user.String() + "/" + hex.EncodeToString(sum[:16])
	if format == "webp" {
		key += domain.ConvertedSuffix
	}
	return key
}
