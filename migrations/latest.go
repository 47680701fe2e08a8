package migrations

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// Latest is the newest migration version in fsys: FS here, or the PostgreSQL twins' FS.
func Latest(fsys fs.FS) (uint, error) {
	src, err := iofs.New(fsys, ".")
	if err != nil {
		return 0, err
	}
	defer src.Close()
	v, err := src.First()
	if err != nil {
		return 0, err
	}
	for {
		next, err := src.Next(v)
		if err != nil {
			return v, nil
		}
		v = next
	}
}

// File is an up migration of fsys: its version and file name.
type File struct {
	Version uint64
	Name    string
}

// UpTo lists the up migrations of fsys (FS here, or the PostgreSQL twins' FS) up to version
// last, oldest first: what an adoption runs inside its own transaction.
func UpTo(fsys fs.FS, last uint64) ([]File, error) {
	names, err := fs.Glob(fsys, "*.up.sql")
	if err != nil {
		return nil, err
	}
	var files []File
	for _, f := range names {
		num, _, _ := strings.Cut(f, "_")
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", f, err)
		}
		if v <= last {
			files = append(files, File{v, f})
		}
	}
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Version, b.Version) })
	return files, nil
}
