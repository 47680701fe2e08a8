package importer_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"moviesdiary/internal/adapters/tabular"
	"moviesdiary/internal/usecase/importer"
)

// stored is what a session's rows hold in the database: their cells and read errors, in bytes.
func (b *bundle) stored(t *testing.T) (rows, bytes int64) {
	t.Helper()
	err := b.db.QueryRow(`SELECT count(*), coalesce(sum(length(cells) + coalesce(length(read_error), 0)), 0) FROM import_rows`).
		Scan(&rows, &bytes)
	if err != nil {
		t.Fatal(err)
	}
	return rows, bytes
}

// sparseWorkbook is an XLSX of a header (Title, Year, Rating) and rows rows of "Heat" in column
// A and "x" in the sheet's last column, XFD; the sheet is written by hand (excelize's own writer
// pads every row to the column it sets, slowly).
func sparseWorkbook(t *testing.T, rows int) []byte {
	t.Helper()
	f := excelize.NewFile()
	var base bytes.Buffer
	if err := f.Write(&base); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(base.Bytes()), int64(base.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, zf := range zr.File {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if zf.Name != "xl/worksheets/sheet1.xml" {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(w, rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		is := func(ref, s string) string { return `<c r="` + ref + `" t="inlineStr"><is><t>` + s + `</t></is></c>` }
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`,
			`<row r="1">`, is("A1", "Title"), is("B1", "Year"), is("C1", "Rating"), `</row>`)
		for i := 2; i <= rows+1; i++ {
			fmt.Fprintf(w, `<row r="%d">%s%s</row>`, i, is(fmt.Sprintf("A%d", i), "Heat"), is(fmt.Sprintf("XFD%d", i), "x"))
		}
		fmt.Fprint(w, `</sheetData></worksheet>`)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestSparseSpreadsheetStoresItsCells: rows with one cell in the sheet's last column (XFD)
// were stored padded to 16,384 cells, some 3,500 times the upload (1,000 such rows: 49 MB from
// a 14 KB file). A row keeps the header's width without its trailing empty cells, so what an
// upload stores is bounded by the upload.
func TestSparseSpreadsheetStoresItsCells(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const rows = 200
	upload := sparseWorkbook(t, rows)
	c, err := b.svc.Create(context.Background(), importer.Upload{UserID: b.user, Filename: "sparse.xlsx", Body: bytes.NewReader(upload)})
	if err != nil || c.Session.RowCount != rows {
		t.Fatalf("create = %d rows, %v", c.Session.RowCount, err)
	}
	n, size := b.stored(t)
	t.Logf("a %d-byte upload stored %d rows in %d bytes", len(upload), n, size)
	if n != rows || size > int64(len(upload)) {
		t.Errorf("stored %d rows in %d bytes, want %d rows in at most the upload's %d bytes", n, size, rows, len(upload))
	}
}

// TestOversizedCells: a cell over tabular.MaxCellBytes is its row's error and is not stored
// (the rows beside it are); a 20 MB cell on one line refuses the file, naming the limit, and
// leaves nothing behind.
func TestOversizedCells(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var f strings.Builder
	f.WriteString("Title,Comment\n")
	cell := strings.Repeat("x", 100<<10)
	for i := range 200 {
		fmt.Fprintf(&f, "Film %d,%s\n", i, cell)
	}
	f.WriteString("Heat,fine\n")
	c, err := b.svc.Create(ctx, importer.Upload{UserID: b.user, Body: strings.NewReader(f.String())})
	if err != nil || c.Session.RowCount != 201 {
		t.Fatalf("create = %d rows, %v", c.Session.RowCount, err)
	}
	got, err := b.store.ImportRows(ctx, c.Session.ID, -1, 1000)
	if err != nil || len(got) != 201 || got[0].ReadErr != fmt.Sprintf("cell 2 is larger than %d bytes", tabular.MaxCellBytes) ||
		len(got[0].Cells) != 0 || strings.Join(got[200].Cells, "|") != "Heat|fine" {
		t.Fatalf("rows = %d, %v; first %+v", len(got), err, got[0].ReadErr)
	}
	if _, size := b.stored(t); size > 64<<10 {
		t.Errorf("a file of 200 rows of 100 KB cells stored %d bytes", size)
	}

	huge := "Title,Comment\nHeat," + strings.Repeat("x", 20<<20) + "\n"
	_, err = b.svc.Create(ctx, importer.Upload{UserID: b.user, Body: strings.NewReader(huge)})
	if !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("a 20 MB cell: %v, want ErrTooLarge naming the line limit", err)
	}
	if n, _ := b.store.DeleteExpiredImportSessions(ctx, b.now.Add(100*importer.SessionTTL)); n != 1 {
		t.Errorf("deleted %d sessions, want only the first upload's", n)
	}
}
