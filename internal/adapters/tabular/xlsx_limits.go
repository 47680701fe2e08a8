package tabular

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Limits on an XLSX workbook, checked on the zip before excelize reads any of it. A workbook is a
// zip of XML parts: a 1 MB upload can unzip to gigabytes, and excelize's own limit
// (Options.UnzipSizeLimit) bounds the parts' bytes but not what it builds from them — an index
// entry per shared string, a struct per cell. So the declared size of every part is checked (the
// zip reader refuses a part that inflates past its declared size, here and in excelize), and the
// parts excelize streams (worksheets, shared strings) are scanned once, without allocating, for
// what would cost memory: how many shared strings and how large each is, how many rows and cells
// per row, how large a row is.
const (
	// MaxXLSXParts bounds the entries of the zip.
	MaxXLSXParts = 10_000
	// MaxXLSXPartBytes bounds one part, unzipped.
	MaxXLSXPartBytes = 128 << 20
	// MaxXLSXBytes bounds all parts together, unzipped.
	MaxXLSXBytes = 256 << 20
	// MaxXLSXResidentBytes bounds the parts excelize keeps in memory (all but the worksheets and
	// shared strings larger than xlsxMemoryPartBytes, which it spools to temporary files).
	MaxXLSXResidentBytes = 64 << 20
	// MaxSharedStrings bounds the shared strings table's entries (each costs excelize an index
	// entry); each entry's text is bounded by MaxCellBytes.
	MaxSharedStrings = 1_000_000
	// MaxSheetRows bounds a worksheet's rows (Excel's own limit).
	MaxSheetRows = 1 << 20
	// MaxRowCells bounds one row's cells (Excel's own column limit).
	MaxRowCells = 16_384
	// MaxRowXMLBytes bounds one row's XML, which excelize decodes whole.
	MaxRowXMLBytes = 4 << 20
	// maxXMLRun bounds the bytes between two '<' in a scanned part: a text node or a tag, which an
	// XML decoder holds whole.
	maxXMLRun = 1 << 20
	// xlsxMemoryPartBytes is excelize's UnzipXMLSizeLimit: a worksheet or the shared strings
	// larger than it are spooled to a temporary file and streamed instead of held in memory.
	xlsxMemoryPartBytes = 1 << 20
)

// checkWorkbook checks an XLSX upload against the limits above. An error that is not a limit's
// (not a zip) is left for excelize to report.
func checkWorkbook(content []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return fmt.Errorf("%w (it is a damaged zip archive: %v)", ErrNotATable, err)
	}
	if !slices.ContainsFunc(zr.File, func(f *zip.File) bool { return strings.HasPrefix(f.Name, "xl/") }) {
		return fmt.Errorf("%w (it is a zip archive without a workbook)", ErrNotATable)
	}
	if len(zr.File) > MaxXLSXParts {
		return limitError("the XLSX zip has %d entries, more than %d", len(zr.File), MaxXLSXParts)
	}
	var total, resident uint64
	for _, f := range zr.File {
		size := f.UncompressedSize64
		if size > MaxXLSXPartBytes {
			return limitError("XLSX part %s unzips to %d bytes, more than %d", f.Name, size, MaxXLSXPartBytes)
		}
		if total += size; total > MaxXLSXBytes {
			return limitError("the XLSX parts unzip to more than %d bytes", MaxXLSXBytes)
		}
		kind := partKind(f.Name)
		if kind == otherPart || size <= xlsxMemoryPartBytes {
			if resident += size; resident > MaxXLSXResidentBytes {
				return limitError("the XLSX parts held in memory unzip to more than %d bytes", MaxXLSXResidentBytes)
			}
		}
		if kind == otherPart {
			continue
		}
		if err := scanPart(f, kind); err != nil {
			return err
		}
	}
	return nil
}

// The parts a workbook check scans.
const (
	otherPart = iota
	sheetPart
	sharedStringsPart
)

// partKind names the parts excelize streams: worksheets and the shared strings table.
func partKind(name string) int {
	name = strings.ToLower(strings.ReplaceAll(name, "\\", "/"))
	switch {
	case name == "xl/sharedstrings.xml":
		return sharedStringsPart
	case strings.HasPrefix(name, "xl/worksheets/") && strings.HasSuffix(name, ".xml"):
		return sheetPart
	}
	return otherPart
}

// scanPart reads one part through an xmlScan.
func scanPart(f *zip.File, kind int) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("XLSX part %s: %w", f.Name, err)
	}
	defer rc.Close()
	s := xmlScan{part: f.Name, kind: kind}
	buf := make([]byte, 32<<10)
	for {
		n, err := rc.Read(buf)
		if serr := s.scan(buf[:n]); serr != nil {
			return serr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("XLSX part %s: %w", f.Name, err)
		}
	}
}

// xmlScan counts a part's elements byte by byte, without parsing or allocating: the name after
// each '<' (its namespace prefix dropped), whether the tag closes ('</x>' or '<x/>'), and the
// bytes between. It cannot be fooled into counting less than a decoder sees: text in a comment or
// a CDATA section that looks like a tag is counted as one (a miscount only ever refuses more).
type xmlScan struct {
	part string
	kind int

	inTag    bool
	closing  bool // the tag began with '/'
	nameDone bool
	name     [16]byte
	nameLen  int // may pass len(name): then the name is none we count
	last     byte
	run      int // bytes since the last '<'

	strings   int // shared strings seen
	inString  bool
	textBytes int // text of the current shared string
	rows      int
	cells     int // cells of the current row
	rowBytes  int // bytes of the current row
	inRow     bool
}

func (s *xmlScan) scan(p []byte) error {
	for _, c := range p {
		if s.run++; s.run > maxXMLRun {
			return limitError("XLSX part %s holds a text or tag longer than %d bytes", s.part, maxXMLRun)
		}
		if s.inRow {
			if s.rowBytes++; s.rowBytes > MaxRowXMLBytes {
				return limitError("a row of the XLSX sheet %s is larger than %d bytes", s.part, MaxRowXMLBytes)
			}
		}
		if !s.inTag {
			if c == '<' {
				s.inTag, s.closing, s.nameDone, s.nameLen, s.run = true, false, false, 0, 0
			} else if s.inString {
				if s.textBytes++; s.textBytes > MaxCellBytes {
					return limitError("shared string %d of the XLSX is larger than %d bytes", s.strings, MaxCellBytes)
				}
			}
			continue
		}
		switch {
		case c == '>':
			s.inTag = false
			if err := s.tag(s.last == '/'); err != nil {
				return err
			}
		case s.nameDone:
		case c == '/' && s.nameLen == 0 && !s.closing:
			s.closing = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '/':
			s.nameDone = true
		case c == ':':
			s.nameLen = 0 // a namespace prefix: the local name follows
		default:
			if s.nameLen < len(s.name) {
				s.name[s.nameLen] = c
			}
			s.nameLen++
		}
		s.last = c
	}
	return nil
}

// tag handles a tag just closed by '>'; selfClosing for '<x/>'.
func (s *xmlScan) tag(selfClosing bool) error {
	switch s.kind {
	case sharedStringsPart:
		if !s.named("si") {
			return nil
		}
		if s.closing || selfClosing {
			s.inString = false
			if !s.closing {
				s.strings++
			}
		} else {
			s.inString, s.textBytes = true, 0
			s.strings++
		}
		if s.strings > MaxSharedStrings {
			return limitError("the XLSX has more than %d shared strings", MaxSharedStrings)
		}
	case sheetPart:
		switch {
		case s.named("row"):
			switch {
			case s.closing || selfClosing:
				s.inRow = false
				if !s.closing {
					s.rows++
				}
			default:
				s.inRow, s.cells, s.rowBytes = true, 0, 0
				s.rows++
			}
			if s.rows > MaxSheetRows {
				return limitError("the XLSX sheet %s has more than %d rows", s.part, MaxSheetRows)
			}
		case s.named("c"):
			if s.closing {
				return nil
			}
			if s.cells++; s.cells > MaxRowCells {
				return limitError("a row of the XLSX sheet %s has more than %d cells", s.part, MaxRowCells)
			}
		}
	}
	return nil
}

// named reports whether the tag's local name is n (compared in place, never allocated).
func (s *xmlScan) named(n string) bool {
	return s.nameLen == len(n) && string(s.name[:s.nameLen]) == n
}
