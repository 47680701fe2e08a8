package tabular_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"moviesdiary/internal/adapters/tabular"
)

// read opens content and returns its format, header and rows as "cell|cell" (a read error as
// "!error").
func read(t *testing.T, content []byte, format string) (string, []string, []string) {
	t.Helper()
	f, err := tabular.Open(bytes.NewReader(content), format)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer f.Close()
	var rows []string
	for {
		cells, readErr, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if readErr != "" {
			rows = append(rows, "!"+readErr)
			continue
		}
		rows = append(rows, strings.Join(cells, "|"))
	}
	return f.Format(), f.Header(), rows
}

func TestDelimitedText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, format, wantFormat string
		header                       []string
		rows                         []string
	}{
		{"comma", "a,b\n1,2\n", "", "csv", []string{"a", "b"}, []string{"1|2"}},
		{"semicolon with a BOM and CRLF", "\uFEFFa;b\r\n1;\"x;y\"\r\n", "", "csv", []string{"a", "b"}, []string{"1|x;y"}},
		{"tab detected", "a\tb\n1\t2\n", "", "tsv", []string{"a", "b"}, []string{"1|2"}},
		{"tsv given", "a,b\tc\n1,2\t3\n", "tsv", "tsv", []string{"a,b", "c"}, []string{"1,2|3"}},
		{"quoted newline and quotes", "a,b\n\"line 1\nline 2\",\"say \"\"hi\"\"\"\n", "", "csv", []string{"a", "b"}, []string{"line 1\nline 2|say \"hi\""}},
		{"blank lines, short and long rows", "a,b,c\n\n1\n,,\n4,5,6,7\n", "", "csv", []string{"a", "b", "c"}, []string{"1", "4|5|6"}},
		{"a stray quote is literal", "a,b\n5\" tall,2\n", "", "csv", []string{"a", "b"}, []string{"5\" tall|2"}},
		{"unnamed header cells", " a ,,c\n1,2,3\n", "csv", "csv", []string{"a", "column 2", "c"}, []string{"1|2|3"}},
		{"commas in a quoted header", "\"x, y\",z;w\n1,2\n", "", "csv", []string{"x, y", "z;w"}, []string{"1|2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			format, header, rows := read(t, []byte(c.in), c.format)
			if format != c.wantFormat || !slices.Equal(header, c.header) || !slices.Equal(rows, c.rows) {
				t.Errorf("got %s %q %q, want %s %q %q", format, header, rows, c.wantFormat, c.header, c.rows)
			}
		})
	}
}

// TestAStrayQuoteTakesOnlyItsRow: a quote that opens a field and is never properly closed is
// that row's error, with its line's cells; the rows after it are read as they are, each one.
// encoding/csv with LazyQuotes read on across the newlines and merged them into one cell.
func TestAStrayQuoteTakesOnlyItsRow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		rows     []string
	}{
		{"an opening quote never closed", "Title,Year,Rating\nHeat,1995,4\n\"Ran,1985,5\nAlien,1979,4\nDune,2021,3\n",
			[]string{"Heat|1995|4", "!line 3: a quoted field is not closed (a stray quote?)", "Alien|1979|4", "Dune|2021|3"}},
		{"a quoted title with more after it", "Title,Year,Rating\n\"Heat\" (1995),1995,4\nRan,1985,5\n",
			[]string{"!line 2: extraneous \" in a quoted field (column 1)", "Ran|1985|5"}},
		{"the stray quote meets a real quoted field", "Title,Year,Comment\n\"Heat,1995,x\nRan,1985,ok\nAlien,1979,\"a,\nb\"\nDune,2021,\n",
			[]string{"!line 2: a quoted field is not closed (a stray quote?)", "Ran|1985|ok", "Alien|1979|a,\nb", "Dune|2021"}},
		{"lines of stray quotes", "a,b\n\"x\n\"y\n\"z\n1,2\n",
			[]string{"!line 2: a quoted field is not closed (a stray quote?)", "!line 3: a quoted field is not closed (a stray quote?)",
				"!line 4: a quoted field is not closed (a stray quote?)", "1|2"}},
		{"a stray quote with a run of lines after it", "a,b\n1,2\n\"x,3\n4,5\n\"y,6\n7,8\n",
			[]string{"1|2", "!line 3: a quoted field is not closed (a stray quote?)", "4|5",
				"!line 5: a quoted field is not closed (a stray quote?)", "7|8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, _, rows := read(t, []byte(c.in), "")
			if !slices.Equal(rows, c.rows) {
				t.Errorf("rows = %q, want %q", rows, c.rows)
			}
		})
	}
	// Nine lines are eight rows: the malformed one keeps its values beside its error.
	in := "Title,Year,Rating\n" + "Heat,1995,4\n" + "\"Ran,1985,5\n" + strings.Repeat("Alien,1979,4\n", 6)
	f, err := tabular.Open(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int
	for {
		cells, readErr, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && (readErr == "" || strings.Join(cells, "|") != "Ran|1985|5") {
			t.Errorf("row 2: %q %q, want its cells and its error", cells, readErr)
		}
		n++
	}
	if n != 8 {
		t.Errorf("%d rows, want 8", n)
	}
}

// TestFilesThatAreNotTables: an image, a document, an archive that is not a workbook or a
// binary is refused as not a table, whatever format the client named; text in Latin-1 or
// with a stray control character is still a table.
func TestFilesThatAreNotTables(t *testing.T) {
	t.Parallel()
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.Create("notes.txt")
	_, _ = w.Write([]byte("Title,Year\nHeat,1995\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i*i*31)
	}
	for name, c := range map[string]struct {
		in     []byte
		format string
		says   string
	}{
		"PNG":                {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"), "", "PNG image"},
		"PNG named a CSV":    {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"), "csv", "PNG image"},
		"JPEG":               {[]byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"), "", "JPEG image"},
		"PDF":                {[]byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n"), "json", "PDF document"},
		"old Excel":          {[]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00"), "", ".xls"},
		"gzip":               {[]byte("\x1F\x8B\x08\x00\x00\x00\x00\x00"), "", "gzip archive"},
		"a zip of text":      {zipped.Bytes(), "", "zip archive without a workbook"},
		"a zip named a CSV":  {zipped.Bytes(), "csv", "zip archive without a workbook"},
		"a damaged zip":      {[]byte("PK\x03\x04garbage"), "", "damaged zip"},
		"binary":             {random, "", "binary data"},
		"binary named a TSV": {random, "tsv", "binary data"},
	} {
		_, err := tabular.Open(bytes.NewReader(c.in), c.format)
		if !errors.Is(err, tabular.ErrNotATable) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ErrNotATable saying %q", name, err, c.says)
		}
	}
	for name, in := range map[string]string{
		"Latin-1":             "Titel;Jahr\nDie Blechtrommel;1979\nM\xfcnchen;1972\n\xc4rger im Para\xdfies;1990\n",
		"a control char":      "a,b\n\x00,\x01\n",
		"a title starting BZ": "BZh,Year\nHeat,1995\n",
	} {
		if _, err := tabular.Open(strings.NewReader(in), ""); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestJSONArray(t *testing.T) {
	t.Parallel()
	in := `[{"z":"Heat","a":1995,"n":null,"b":true,"o":{"x":1}}, {"a":2000,"extra":"x"}, 7, {"z":"Ran"}]`
	format, header, rows := read(t, []byte(in), "")
	if format != "json" || strings.Join(header, ",") != "z,a,n,b,o" {
		t.Fatalf("format %s header %q: keys must keep the first object's order", format, header)
	}
	want := []string{`Heat|1995||true|{"x":1}`, `|2000`, "!element 3 is not an object", "Ran"}
	if !slices.Equal(rows, want) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
}

func TestXLSXFirstSheet(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	data := [][]any{{}, {"Title", "Year", "Rating"}, {"Heat", 1995, 4.5}, {}, {"Ran", 1985, 3}}
	for i, r := range data {
		if err := f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i+1), &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.NewSheet("Other"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	format, header, rows := read(t, buf.Bytes(), "")
	if format != "xlsx" || strings.Join(header, ",") != "Title,Year,Rating" || !slices.Equal(rows, []string{"Heat|1995|4.5", "Ran|1985|3"}) {
		t.Errorf("got %s %q %q", format, header, rows)
	}
}

func TestUnreadableFiles(t *testing.T) {
	t.Parallel()
	for name, in := range map[string][]byte{
		"empty":            nil,
		"blank header":     []byte(",,\n1,2,3\n"),
		"UTF-16":           {0xFF, 0xFE, 'a', 0},
		"JSON object":      []byte(`{"a":1}`),
		"empty JSON array": []byte(`[]`),
		"not a workbook":   []byte("PK\x03\x04garbage"),
	} {
		if _, err := tabular.Open(bytes.NewReader(in), ""); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	f, err := tabular.Open(strings.NewReader(`[{"a":1}, {"a":`), "json")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Next(); err != nil {
		t.Fatalf("first row: %v", err)
	}
	if _, _, err := f.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("truncated JSON: %v, want an error that ends the file", err)
	}
}
