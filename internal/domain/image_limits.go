package domain

// The bounds of an image we decode, whatever its source (an upload, a fetched poster, a stored
// object the worker converts or thumbnails). They are checked on the header alone, before a
// single pixel is allocated: a few kilobytes of PNG can claim 20,000 × 20,000 pixels, which
// would decode to 1.6 GB of RGBA.
const (
	// MaxImageSide bounds each side, in pixels.
	MaxImageSide = 12_000
	// MaxImagePixels bounds width × height (40 megapixels: 160 MB of RGBA at most).
	MaxImagePixels = 40_000_000
)

// CheckImageSize is the rule every decoded image keeps: a positive size, at most MaxImageSide on
// a side and MaxImagePixels in all. Its error is KindInvalid and names the limit, so an upload
// answers 400 with a message the user can act on.
func CheckImageSize(width, height int) error {
	if width <= 0 || height <= 0 {
		return Invalid("the image has no pixels (%d×%d)", width, height)
	}
	if width > MaxImageSide || height > MaxImageSide || int64(width)*int64(height) > MaxImagePixels {
		return Invalid("the image is %d×%d pixels; at most %d on a side and %d megapixels in all are accepted",
			width, height, MaxImageSide, MaxImagePixels/1_000_000)
	}
	return nil
}
