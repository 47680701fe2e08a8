// Package tabular reads the rows of an uploaded spreadsheet-like file: CSV (comma, semicolon or
// tab separated, with or without a UTF-8 BOM, quoted fields spanning lines), TSV, a JSON array of
// objects, or an XLSX workbook's first sheet. Rows are read one at a time, so a caller can store
// a large file without holding it in memory (XLSX excepted: the zip is read whole, bounded by the
// caller's size limit). What the bytes may turn into is bounded too (limits.go, xlsx.go): columns,
// cell size, line length, and an XLSX's unzipped parts, shared strings, rows and cells.
package tabular

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Formats a file can be read as.
const (
	CSV  = "csv"
	TSV  = "tsv"
	JSON = "json"
	XLSX = "xlsx"
)

// ErrNoHeader means the file has no header row (or is empty).
var ErrNoHeader = errors.New("the file has no header row")

// Rows is an open file: its format and header, then its rows.
type Rows interface {
	Format() string
	Header() []string
	// Next returns the next row's cells, and why its line could not be read if it could not
	// (the row is kept with that, and reading goes on); io.EOF after the last row, or an error
	// that ends the file.
	Next() (cells []string, readErr string, err error)
	// Close releases what reading holds (an XLSX sheet's temporary file).
	Close() error
}

// Open reads the header of r in format (csv, tsv, json, xlsx); an empty or unknown format is
// detected from the content: a zip is XLSX, a leading '[' (or '{', refused) is JSON, anything else is CSV whose
// separator (comma, semicolon or tab) is the most frequent one in the header line.
func Open(r io.Reader, format string) (Rows, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4096)
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return nil, errors.New("the file is UTF-16; save it as UTF-8")
	}
	format = strings.ToLower(strings.TrimSpace(format))
	switch {
	case bytes.HasPrefix(head, zipMagic):
		format = XLSX // whatever the client said: a zip is a workbook or nothing
	case format != XLSX:
		if err := notATable(head); err != nil {
			return nil, err
		}
	}
	switch format {
	case CSV, TSV, JSON, XLSX:
	default:
		format = detect(head)
	}
	var (
		rows Rows
		err  error
	)
	switch format {
	case XLSX:
		rows, err = openXLSX(br)
	case JSON:
		rows, err = openJSON(br)
	case TSV:
		rows, err = openCSV(br, TSV, '\t')
	default:
		rows, err = openCSV(br, CSV, 0)
	}
	if err != nil {
		return nil, err
	}
	return bound(rows)
}

// zipMagic starts a zip archive, as an XLSX workbook is.
var zipMagic = []byte("PK\x03\x04")

// detect names the format of a file from its first bytes.
func detect(head []byte) string {
	if bytes.HasPrefix(head, zipMagic) {
		return XLSX
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return JSON
	}
	return CSV
}

// blank reports whether every cell is empty (a spreadsheet's trailing rows, a blank line).
func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// header cleans a header row: trailing blank cells dropped, cells trimmed, a missing name
// becomes "column N".
func header(cells []string) ([]string, error) {
	cells = trimHeader(cells)
	if blank(cells) {
		return nil, ErrNoHeader
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		c = strings.TrimSpace(strings.TrimPrefix(c, "\uFEFF"))
		if c == "" {
			c = fmt.Sprintf("column %d", i+1)
		}
		out[i] = c
	}
	return out, nil
}
