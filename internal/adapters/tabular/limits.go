package tabular

import (
	"fmt"

	"moviesdiary/internal/usecase/importer"
)

// Limits on what one uploaded file may cost, whatever its format. The upload's own size
// (importer.MaxFileBytes) bounds the bytes read; these bound what those bytes may turn into.
const (
	// MaxColumns bounds the header: a file with more columns is refused. Rows are cut to the
	// header's width (a cell past it cannot be mapped) and their trailing empty cells dropped,
	// so a sparse spreadsheet row with one cell in column XFD stores nothing but its used cells.
	MaxColumns = 256
	// MaxCellBytes bounds one cell: a row with a larger cell is stored as that row's error
	// (without its cells); a header cell or a shared string that large refuses the file.
	MaxCellBytes = 64 << 10
	// MaxRowBytes bounds one row's cells together, as MaxCellBytes bounds one.
	MaxRowBytes = 256 << 10
	// MaxLineBytes bounds a CSV line between two newlines: a longer one refuses the file. It
	// bounds how many (empty) fields one record can split into.
	MaxLineBytes = 1 << 20
)

// limitError refuses a file past one of the limits; it wraps importer.ErrTooLarge, which the
// HTTP layer answers with 413 and the message, naming the limit.
func limitError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", importer.ErrTooLarge, fmt.Sprintf(format, args...))
}

// bounded keeps the row limits over any format's rows: cut to the header's width, trailing
// empty cells dropped, a cell over MaxCellBytes turned into the row's error.
type bounded struct{ Rows }

// bound checks the header of rows and wraps them in the row limits.
func bound(rows Rows) (Rows, error) {
	if n := len(rows.Header()); n > MaxColumns {
		_ = rows.Close()
		return nil, limitError("the header has %d columns, more than %d", n, MaxColumns)
	}
	for i, c := range rows.Header() {
		if len(c) > MaxCellBytes {
			_ = rows.Close()
			return nil, limitError("header cell %d is larger than %d bytes", i+1, MaxCellBytes)
		}
	}
	return bounded{rows}, nil
}

func (b bounded) Next() ([]string, string, error) {
	cells, readErr, err := b.Rows.Next()
	if err != nil {
		return nil, "", err
	}
	cells = trim(cells, len(b.Header()))
	size := 0
	for i, c := range cells {
		size += len(c)
		msg := ""
		switch {
		case len(c) > MaxCellBytes:
			msg = fmt.Sprintf("cell %d is larger than %d bytes", i+1, MaxCellBytes)
		case size > MaxRowBytes:
			msg = fmt.Sprintf("the row is larger than %d bytes", MaxRowBytes)
		default:
			continue
		}
		if readErr != "" {
			msg = readErr + "; " + msg
		}
		return []string{}, msg, nil
	}
	return cells, readErr, nil
}

// trim cuts cells to width and drops the trailing empty ones.
func trim(cells []string, width int) []string {
	if len(cells) > width {
		cells = cells[:width]
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return cells
}

// trimHeader drops a header's trailing blank cells (a spreadsheet's formatted empty columns).
func trimHeader(cells []string) []string {
	for len(cells) > 0 && blank(cells[len(cells)-1:]) {
		cells = cells[:len(cells)-1]
	}
	return cells
}
