package tabular

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// bom is the UTF-8 byte order mark spreadsheet programs put at the start of a CSV.
var bom = []byte{0xEF, 0xBB, 0xBF}

// csvRows reads delimited text with encoding/csv: quoted fields may hold separators, quotes and
// newlines; a stray quote is taken literally; rows may have fewer or more cells than the header.
type csvRows struct {
	format string
	r      *csv.Reader
	header []string
}

// openCSV reads the header of br; comma 0 sniffs the separator from the header line.
func openCSV(br *bufio.Reader, format string, comma rune) (Rows, error) {
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		_, _ = br.Discard(len(bom))
	}
	if comma == 0 {
		comma = sniff(br)
		if comma == '\t' {
			format = TSV
		}
	}
	r := csv.NewReader(&lineLimiter{r: br})
	r.Comma = comma
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	first, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, ErrNoHeader
	}
	if err != nil {
		return nil, fmt.Errorf("read the header: %w", err)
	}
	h, err := header(first)
	if err != nil {
		return nil, err
	}
	return &csvRows{format: format, r: r, header: h}, nil
}

// sniff picks the separator that occurs most often, outside quotes, in the first line.
func sniff(br *bufio.Reader) rune {
	head, _ := br.Peek(br.Size())
	counts := map[byte]int{}
	quoted := false
	for _, c := range head {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if c == '\n' || c == '\r' {
			break
		}
		if c == ',' || c == ';' || c == '\t' {
			counts[c]++
		}
	}
	best := byte(',')
	for _, c := range []byte{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return rune(best)
}

func (c *csvRows) Format() string   { return c.format }
func (c *csvRows) Header() []string { return c.header }
func (c *csvRows) Close() error     { return nil }

// Next returns the next non-blank record; a malformed line becomes a row carrying its error.
func (c *csvRows) Next() ([]string, string, error) {
	for {
		rec, err := c.r.Read()
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe):
			return rec, fmt.Sprintf("line %d: %v", pe.StartLine, pe.Err), nil
		case err != nil:
			return nil, "", err
		case blank(rec):
			continue
		}
		return rec, "", nil
	}
}
