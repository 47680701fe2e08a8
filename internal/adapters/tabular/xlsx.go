package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// xlsxRows reads the first sheet of a workbook row by row, cells as their formatted text.
type xlsxRows struct {
	f      *excelize.File
	rows   *excelize.Rows
	header []string
}

// openXLSX reads the upload whole (the caller bounds it), checks the zip against the limits
// (checkWorkbook) and only then lets excelize open it.
func openXLSX(r io.Reader) (Rows, error) {
	content, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := checkWorkbook(content); err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(content), excelize.Options{
		UnzipSizeLimit: MaxXLSXBytes, UnzipXMLSizeLimit: xlsxMemoryPartBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("XLSX: %w", err)
	}
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		_ = f.Close()
		return nil, ErrNoHeader
	}
	rows, err := f.Rows(sheets[0])
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("XLSX: %w", err)
	}
	x := &xlsxRows{f: f, rows: rows}
	for {
		cells, err := x.next()
		if err != nil {
			_ = x.Close()
			if errors.Is(err, io.EOF) {
				return nil, ErrNoHeader
			}
			return nil, err
		}
		if blank(cells) {
			continue
		}
		if x.header, err = header(cells); err != nil {
			_ = x.Close()
			return nil, err
		}
		return x, nil
	}
}

func (x *xlsxRows) next() ([]string, error) {
	if !x.rows.Next() {
		if err := x.rows.Error(); err != nil {
			return nil, fmt.Errorf("XLSX: %w", err)
		}
		return nil, io.EOF
	}
	cells, err := x.rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("XLSX: %w", err)
	}
	return cells, nil
}

func (x *xlsxRows) Format() string   { return XLSX }
func (x *xlsxRows) Header() []string { return x.header }

func (x *xlsxRows) Next() ([]string, string, error) {
	for {
		cells, err := x.next()
		if err != nil {
			return nil, "", err
		}
		if !blank(cells) {
			return cells, "", nil
		}
	}
}

func (x *xlsxRows) Close() error {
	return errors.Join(x.rows.Close(), x.f.Close())
}
