package tabular_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"moviesdiary/internal/adapters/tabular"
)

// checkFile reads data as format and holds the parser to its limits: whatever the input, Open
// and Next return (no panic), the header has at most MaxColumns cells, and every row at most
// the header's width, with cells of at most MaxCellBytes.
func checkFile(t *testing.T, data []byte, format string) {
	f, err := tabular.Open(bytes.NewReader(data), format)
	if err != nil {
		return
	}
	defer f.Close()
	width := len(f.Header())
	if width == 0 || width > tabular.MaxColumns {
		t.Fatalf("header of %d cells", width)
	}
	for {
		cells, _, err := f.Next()
		if errors.Is(err, io.EOF) || err != nil {
			return
		}
		if len(cells) > width {
			t.Fatalf("a row of %d cells under a header of %d", len(cells), width)
		}
		for _, c := range cells {
			if len(c) > tabular.MaxCellBytes {
				t.Fatalf("a cell of %d bytes", len(c))
			}
		}
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "\uFEFFa;b\r\n1;\"x;y\"\r\n", "a\tb\n1\t2\n", "a,b\n\"line 1\nline 2\",\"say \"\"hi\"\"\"\n",
		"a,b,c\n\n1\n,,\n4,5,6,7\n", "a,b\n5\" tall,2\n", " a ,,c\n1,2,3\n", "Title,Year,,,\nHeat,1995,,,\n",
		"Date,Name,Year,Letterboxd URI,Rating\n2023-01-05,Heat,1995,https://boxd.it/2bHu,3.5\n", "a\x00,b\n\x00,\x01\n",
		"Title,Year\n\"Ran,1985\nAlien,1979\n", "a,b\n\"x\n\"y\n\"z\n1,2\n", "a,b\n\"Heat\" (1995),1\n2,3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFile(t, data, "") })
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`[{"z":"Heat","a":1995,"n":null,"b":true,"o":{"x":1}}, {"a":2000,"extra":"x"}, 7, {"z":"Ran"}]`,
		`[{"a":1}, {"a":`, `[]`, `{"a":1}`, `[{"":1,"a":2,"a":3}]`, `[{"Title":"He\u0000at"}]`, "\uFEFF[{\"a\":\"b\"}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFile(t, data, "json") })
}

func FuzzXLSX(f *testing.F) {
	f.Add(workbook(f, []any{"Title", "Year", "Rating"}, []any{"Heat", 1995, 4.5}, []any{}, []any{"Ran", 1985, 3}))
	f.Add(workbook(f, []any{}, []any{"Title"}, []any{"x\x00y"}))
	f.Add([]byte("PK\x03\x04garbage"))
	f.Fuzz(func(t *testing.T, data []byte) { checkFile(t, data, "xlsx") })
}
