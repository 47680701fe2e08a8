package tabular

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// bom is the UTF-8 byte order mark spreadsheet programs put at the start of a CSV.
var bom = []byte{0xEF, 0xBB, 0xBF}

// csvRows reads delimited text, RFC 4180 with two allowances: a quote inside an unquoted field
// is taken literally (5" tall), and rows may have fewer or more cells than the header. A quoted
// field may span lines; a stray quote may not take the rows after it: encoding/csv with
// LazyQuotes reads on across the newline and merges the next rows into one cell, losing them
// silently. Here a record whose quoted field is never properly closed (another quote follows
// it that is neither doubled nor the field's end, or the file ends) is its first line's error,
// and the lines it would have taken are read again, each on its own line, so every other row
// stays intact. Each line is read at most three times, however the quotes fall.
type csvRows struct {
	format  string
	comma   byte
	in      *bufio.Reader
	line    int       // physical lines read from in
	pending []csvLine // lines of a failed record, to be read again first
	header  []string
}

// csvLine is a physical line without its line ending. single marks a line of a failed record's
// span: it is read on its own, never continued onto the next line.
type csvLine struct {
	text   string
	n      int
	single bool
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
	c := &csvRows{format: format, comma: byte(comma), in: br}
	var first []string
	for {
		cells, readErr, err := c.record()
		if errors.Is(err, io.EOF) {
			return nil, ErrNoHeader
		}
		if err != nil {
			return nil, err
		}
		if readErr != "" {
			return nil, fmt.Errorf("read the header: %s", readErr)
		}
		if len(cells) > 1 || cells[0] != "" { // an empty line is skipped, a line of separators is not
			first = cells
			break
		}
	}
	h, err := header(first)
	if err != nil {
		return nil, err
	}
	c.header = h
	return c, nil
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

// Next returns the next non-blank record; a malformed one becomes a row carrying its error and
// the cells of its line, split at the separator.
func (c *csvRows) Next() ([]string, string, error) {
	for {
		cells, readErr, err := c.record()
		if err != nil {
			return nil, "", err
		}
		if readErr == "" && blank(cells) {
			continue
		}
		return cells, readErr, nil
	}
}

// record reads one record: its cells, or its first line's cells and why it could not be read.
func (c *csvRows) record() ([]string, string, error) {
	first, err := c.nextLine()
	if err != nil {
		return nil, "", err
	}
	p := fieldParser{comma: c.comma}
	switch p.feed(first.text) {
	case recordDone:
		return p.cells, "", nil
	case recordBad:
		return c.split(first.text), fmt.Sprintf("line %d: %s", first.n, p.why), nil
	}
	if first.single {
		return c.split(first.text), fmt.Sprintf("line %d: a quoted field is not closed on its line (a stray quote?)", first.n), nil
	}
	var span []csvLine
	for {
		l, err := c.nextLine()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, "", err
		}
		if errors.Is(err, io.EOF) || l.single {
			if err == nil {
				span = append(span, l)
			}
			c.retry(span, len(span))
			return c.split(first.text), fmt.Sprintf("line %d: a quoted field is not closed (a stray quote?)", first.n), nil
		}
		span = append(span, l)
		switch p.feed(l.text) {
		case recordDone:
			return p.cells, "", nil
		case recordBad:
			// The quote that opened the field was stray: the lines between are read again on
			// their own, and the line where the field went wrong from its start.
			c.retry(span, len(span)-1)
			return c.split(first.text), fmt.Sprintf("line %d: a quoted field is not closed (a stray quote?)", first.n), nil
		}
	}
}

// retry puts the lines of a failed record's span back to be read again: the first singles each
// on its own line, the rest (the line where the record went wrong) as ordinary lines.
func (c *csvRows) retry(span []csvLine, singles int) {
	again := make([]csvLine, 0, len(span)+len(c.pending))
	for i, l := range span {
		l.single = l.single || i < singles
		again = append(again, l)
	}
	c.pending = append(again, c.pending...)
}

// nextLine returns the next line to read: one put back, else the next of the file.
func (c *csvRows) nextLine() (csvLine, error) {
	if len(c.pending) > 0 {
		l := c.pending[0]
		c.pending = c.pending[1:]
		return l, nil
	}
	text, err := c.readLine()
	if err != nil {
		return csvLine{}, err
	}
	c.line++
	return csvLine{text: text, n: c.line}, nil
}

// readLine reads one physical line without its "\n" or "\r\n"; a line longer than MaxLineBytes
// refuses the file.
func (c *csvRows) readLine() (string, error) {
	var buf []byte
	for {
		part, err := c.in.ReadSlice('\n')
		if len(buf)+len(part) > MaxLineBytes+2 {
			return "", limitError("a line is longer than %d bytes", MaxLineBytes)
		}
		buf = append(buf, part...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
		case err != nil:
			return "", err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > MaxLineBytes {
			return "", limitError("a line is longer than %d bytes", MaxLineBytes)
		}
		return string(buf), nil
	}
}

// split is a malformed line's cells as far as they can be told: split at the separator, a
// field's enclosing quotes removed.
func (c *csvRows) split(line string) []string {
	cells := strings.Split(line, string(c.comma))
	for i, s := range cells {
		if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			s = t[1 : len(t)-1]
		}
		cells[i] = strings.ReplaceAll(strings.TrimPrefix(s, `"`), `""`, `"`)
	}
	return cells
}

// What a line does to the record being read.
type recordStatus int

const (
	recordDone recordStatus = iota // the record ends with the line
	recordOpen                     // a quoted field goes on into the next line
	recordBad                      // a quote in a quoted field is neither doubled nor its end
)

// fieldParser splits a record's lines into fields.
type fieldParser struct {
	comma byte
	cells []string
	cur   strings.Builder
	state int
	why   string
}

// States of fieldParser.
const (
	fieldStart = iota
	inUnquoted
	inQuoted
	quoteInQuoted // a quote inside a quoted field: doubled, or the field's end
)

func (p *fieldParser) end() {
	p.cells = append(p.cells, p.cur.String())
	p.cur.Reset()
	p.state = fieldStart
}

// feed reads one line of the record.
func (p *fieldParser) feed(line string) recordStatus {
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch p.state {
		case fieldStart:
			switch ch {
			case '"':
				p.state = inQuoted
			case p.comma:
				p.end()
			default:
				p.cur.WriteByte(ch)
				p.state = inUnquoted
			}
		case inUnquoted:
			if ch == p.comma {
				p.end()
			} else {
				p.cur.WriteByte(ch)
			}
		case inQuoted:
			if ch == '"' {
				p.state = quoteInQuoted
			} else {
				p.cur.WriteByte(ch)
			}
		case quoteInQuoted:
			switch ch {
			case '"':
				p.cur.WriteByte('"')
				p.state = inQuoted
			case p.comma:
				p.end()
			default:
				p.why = fmt.Sprintf(`extraneous " in a quoted field (column %d)`, len(p.cells)+1)
				return recordBad
			}
		}
	}
	if p.state == inQuoted {
		p.cur.WriteByte('\n')
		return recordOpen
	}
	p.end()
	return recordDone
}
