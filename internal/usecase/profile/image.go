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

// maxImagePixels bounds an upload's decoded size, so its conversion in the worker cannot be made
// to allocate gigabytes by a small, highly compressed file.
const (
	maxImageSide   = 8192
	maxImagePixels = 40_000_000
)

// CheckImage checks an upload is a JPEG, PNG or WebP image (read from its content, never from
// what the client claims) of a sane size, and returns its format ("jpeg", "png" or "webp").
func CheckImage(kind string, data []byte) (string, error) {
	if len(data) > MaxImageBytes {
		return "", domain.Invalid("%s exceeds %d bytes", kind, MaxImageBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || (format != "jpeg" && format != "png" && format != "webp") {
		return "", domain.Invalid("%ss must be jpeg, png, or webp", kind)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxImageSide || cfg.Height > maxImageSide ||
		cfg.Width*cfg.Height > maxImagePixels {
		return "", domain.Invalid("%s is %d×%d pixels; at most %d on a side and %d in all", kind, cfg.Width, cfg.Height,
			maxImageSide, maxImagePixels)
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
