package migrations

import (
	"io/fs"

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
