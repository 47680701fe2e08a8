package tabular

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNotATable refuses a file that is no table at all: an image, a document, an archive other
// than an XLSX workbook, a binary. Read as CSV it would have become a column named "�PNG".
var ErrNotATable = errors.New("the file is not a table: upload a CSV, TSV, JSON array or XLSX workbook")

// signatures are the leading bytes of files people upload by mistake, with what to call them.
var signatures = []struct {
	offset int
	magic  string
	name   string
}{
	{0, "\x89PNG\r\n\x1a\n", "a PNG image"},
	{0, "\xFF\xD8\xFF", "a JPEG image"},
	{0, "GIF87a", "a GIF image"},
	{0, "GIF89a", "a GIF image"},
	{8, "WEBP", "a WebP image"},
	{4, "ftyp", "a video or HEIC image"},
	{0, "%PDF-", "a PDF document"},
	{0, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "an old Excel (.xls) or Office document; save it as XLSX or CSV"},
	{0, "\x1F\x8B", "a gzip archive"},
	{0, "BZh", "a bzip2 archive"},
	{0, "\xFD7zXZ\x00", "an xz archive"},
	{0, "7z\xBC\xAF\x27\x1C", "a 7-Zip archive"},
	{0, "Rar!\x1A\x07", "a RAR archive"},
	{0, "\x28\xB5\x2F\xFD", "a zstd archive"},
	{257, "ustar", "a tar archive"},
	{0, "\x7FELF", "a program"},
	{0, "SQLite format 3\x00", "an SQLite database"},
}

// notATable says why head, a file's first bytes, cannot be a table: a known signature, or
// bytes that text does not hold (NUL and other control characters, invalid UTF-8) making up a
// quarter of it. A text file in Latin-1 or with a stray control character stays a table: its
// rows that break the text rules are their own errors.
func notATable(head []byte) error {
	for _, s := range signatures {
		if len(head) >= s.offset+len(s.magic) && string(head[s.offset:s.offset+len(s.magic)]) == s.magic {
			if s.magic == "BZh" && (len(head) < 4 || head[3] < '1' || head[3] > '9') {
				continue
			}
			return fmt.Errorf("%w (it is %s)", ErrNotATable, s.name)
		}
	}
	bad := 0
	for rest := head; len(rest) > 0; {
		r, n := utf8.DecodeRune(rest)
		switch {
		case r == utf8.RuneError && n == 1 && len(rest) >= utf8.UTFMax:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f', r == 0x7F:
			bad++
		}
		rest = rest[n:]
	}
	if len(head) >= 8 && bad*4 > len(head) {
		return fmt.Errorf("%w (it holds binary data)", ErrNotATable)
	}
	return nil
}
