package tabular_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"moviesdiary/internal/adapters/tabular"
	"moviesdiary/internal/usecase/importer"
)

// workbook is an XLSX whose first sheet holds rows (strings go to the shared strings table).
func workbook(t testing.TB, rows ...[]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	for i, r := range rows {
		if err := f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i+1), &r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rezip copies the zip in content, replacing the parts named in replace with what their
// functions write (deflated fast, so a bomb of tens of megabytes is built in a moment).
func rezip(t *testing.T, content []byte, replace map[string]func(io.Writer) error) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, f := range zr.File {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if write, ok := replace[f.Name]; ok {
			err = write(w)
		} else {
			var rc io.ReadCloser
			if rc, err = f.Open(); err == nil {
				_, err = io.Copy(w, rc)
				rc.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// sharedStrings writes a shared strings table: the given strings, then filler copies of an
// empty one.
func sharedStrings(first []string, filler int) func(io.Writer) error {
	return func(w io.Writer) error {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+
			`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d" uniqueCount="%d">`,
			len(first)+filler, len(first)+filler)
		for _, s := range first {
			fmt.Fprintf(w, "<si><t>%s</t></si>", s)
		}
		block := []byte(strings.Repeat("<si><t>x</t></si>", 1024))
		for range filler / 1024 {
			if _, err := w.Write(block); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "</sst>")
		return err
	}
}

// allocated is how many bytes fn allocates on the heap in all (garbage included): an upper
// bound of the peak it adds, and a count that does not depend on the machine's speed.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestXLSXSharedStringsBomb: a workbook of some 30 KB whose shared strings table unzips to
// 20 MB of 1.2 million strings is refused, naming the limit, before excelize reads it: the
// refusal allocates a few megabytes in all. Read by excelize, the table cost hundreds of
// megabytes (an index entry and a decode per string); at 400 MB it took the server past 2 GB.
// Not parallel: TotalAlloc counts every goroutine's allocations.
func TestXLSXSharedStringsBomb(t *testing.T) {
	base := workbook(t, []any{"Title", "Year"}, []any{"Heat", 1995})
	bomb := rezip(t, base, map[string]func(io.Writer) error{
		"xl/sharedStrings.xml": sharedStrings([]string{"Title", "Year", "Heat"}, 1_200*1024),
	})
	t.Logf("the bomb is %d bytes", len(bomb))
	var err error
	alloc := allocated(func() { _, err = tabular.Open(bytes.NewReader(bomb), "") })
	if !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "shared strings") {
		t.Fatalf("open = %v, want ErrTooLarge naming the shared strings limit", err)
	}
	t.Logf("refused (%v) allocating %d KiB", err, alloc>>10)
	if limit := uint64(8 << 20); alloc > limit {
		t.Errorf("refusing the bomb allocated %d bytes, want at most %d", alloc, limit)
	}

	// The same workbook with a table within the limits opens.
	fine := rezip(t, base, map[string]func(io.Writer) error{"xl/sharedStrings.xml": sharedStrings([]string{"Title", "Year", "Heat"}, 10*1024)})
	_, header, rows := read(t, fine, "")
	if strings.Join(header, ",") != "Title,Year" || !slices.Equal(rows, []string{"Heat|1995"}) {
		t.Errorf("a workbook within the limits read as %q %q", header, rows)
	}
}

// TestXLSXDeclaredPartSize: a part whose declared unzipped size passes the limit is refused
// from the zip's directory, before a byte of it is inflated.
func TestXLSXDeclaredPartSize(t *testing.T) {
	t.Parallel()
	base := workbook(t, []any{"Title"}, []any{"Heat"})
	zr, err := zip.NewReader(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		fh := f.FileHeader
		if f.Name == "xl/worksheets/sheet1.xml" {
			fh.UncompressedSize64 = tabular.MaxXLSXPartBytes + 1
		}
		w, err := zw.CreateRaw(&fh)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = tabular.Open(bytes.NewReader(out.Bytes()), "")
	if !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "xl/worksheets/sheet1.xml unzips to") {
		t.Errorf("open = %v, want ErrTooLarge naming the part", err)
	}
}

// TestXLSXSheetLimits: a sheet's cells per row and rows are bounded on the zip; a row of one
// cell in the last column (XFD) reads as its used cells only.
func TestXLSXSheetLimits(t *testing.T) {
	t.Parallel()
	sheet := func(rows string) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+
				`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+
				`<row r="1"><c r="A1" t="inlineStr"><is><t>Title</t></is></c><c r="B1" t="inlineStr"><is><t>Year</t></is></c></row>`+
				rows+`</sheetData></worksheet>`)
			return err
		}
	}
	base := workbook(t, []any{"x"})
	var sparse strings.Builder
	for i := 2; i < 30; i++ {
		fmt.Fprintf(&sparse, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>Heat</t></is></c><c r="XFD%d" t="inlineStr"><is><t>x</t></is></c></row>`, i, i, i)
	}
	_, header, rows := read(t, rezip(t, base, map[string]func(io.Writer) error{"xl/worksheets/sheet1.xml": sheet(sparse.String())}), "")
	if strings.Join(header, ",") != "Title,Year" || len(rows) != 28 || rows[0] != "Heat" {
		t.Errorf("sparse rows read as %q and %d rows (first %q), want Title,Year and 28 rows of Heat", header, len(rows), rows[0])
	}

	wide := `<row r="2">` + strings.Repeat(`<c t="inlineStr"><is><t>a</t></is></c>`, tabular.MaxRowCells+1) + `</row>`
	_, err := tabular.Open(bytes.NewReader(rezip(t, base, map[string]func(io.Writer) error{"xl/worksheets/sheet1.xml": sheet(wide)})), "")
	if !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "cells") {
		t.Errorf("a row of %d cells: %v, want ErrTooLarge", tabular.MaxRowCells+1, err)
	}
}

// TestCellAndLineLimits: a 2 MB cell is its row's error (the other rows are read); a line of
// 20 MB without a newline refuses the file; a header wider than MaxColumns refuses it.
func TestCellAndLineLimits(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 20_000)
	_, _, rows := read(t, []byte("Title,Comment\nHeat,\""+big+"\"\nRan,fine\n"), "csv")
	if !slices.Equal(rows, []string{fmt.Sprintf("!cell 2 is larger than %d bytes", tabular.MaxCellBytes), "Ran|fine"}) {
		t.Errorf("rows = %.200q", rows)
	}

	f, err := tabular.Open(strings.NewReader("Title,Comment\nHeat,"+strings.Repeat("x", 20<<20)+"\n"), "csv")
	if err == nil {
		_, _, err = f.Next()
	}
	if !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "line") {
		t.Errorf("a 20 MB line: %v, want ErrTooLarge naming the line limit", err)
	}

	wide := strings.Repeat("c,", tabular.MaxColumns) + "c\n"
	if _, err := tabular.Open(strings.NewReader(wide), ""); !errors.Is(err, importer.ErrTooLarge) {
		t.Errorf("a header of %d columns: %v, want ErrTooLarge", tabular.MaxColumns+1, err)
	}
	keys := "[{" + strings.Repeat(`"k":1,`, tabular.MaxColumns) + `"k":1}]`
	if _, err := tabular.Open(strings.NewReader(keys), ""); !errors.Is(err, importer.ErrTooLarge) {
		t.Errorf("a first object of %d keys: %v, want ErrTooLarge", tabular.MaxColumns+1, err)
	}
	// Trailing empty header cells are not columns.
	_, header, rows := read(t, []byte("Title,Year,,,\nHeat,1995,,,\n"), "")
	if strings.Join(header, ",") != "Title,Year" || !slices.Equal(rows, []string{"Heat|1995"}) {
		t.Errorf("got %q %q", header, rows)
	}
}
