package migrations

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/source"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// Source is fsys's migrations as golang-migrate reads them, each up migration followed by the
// statement that marks its version clean in table. golang-migrate marks a version dirty, runs
// the migration, then marks it clean, each in a transaction of its own; both drivers we use run
// a migration's whole text in one transaction, so with the mark inside it the schema change
// and the clean version commit together. A version left dirty then always means its migration
// did not commit (the process or the database stopped in the middle, or the SQL failed), which
// Up can repair.
func Source(fsys fs.FS, table string) (source.Driver, error) {
	src, err := iofs.New(fsys, ".")
	if err != nil {
		return nil, err
	}
	return markClean{Driver: src, mark: "\n;\nUPDATE " + table + " SET dirty = false;\n"}, nil
}

// markClean appends mark to every up migration.
type markClean struct {
	source.Driver
	mark string
}

func (s markClean) ReadUp(version uint) (io.ReadCloser, string, error) {
	r, id, err := s.Driver.ReadUp(version)
	if err != nil {
		return r, id, err
	}
	defer r.Close()
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, id, fmt.Errorf("read migration %d: %w", version, err)
	}
	return io.NopCloser(strings.NewReader(string(body) + s.mark)), id, nil
}

// Up applies every pending migration from src (a Source). A version left dirty is one whose
// migration never committed, so it is set back to the version before it and the migration runs
// again. The caller must hold the store's migration lock for the whole call: between reading
// the dirty version and setting it back, no other process may migrate.
func Up(m *migrate.Migrate, src source.Driver, log *slog.Logger) error {
	err := m.Up()
	var dirty migrate.ErrDirty
	if errors.As(err, &dirty) {
		prev := database.NilVersion
		if p, perr := src.Prev(uint(dirty.Version)); perr == nil {
			prev = int(p)
		}
		log.Warn("a migration was cut short (its version is dirty, nothing of it committed); running it again",
			"version", dirty.Version)
		if err := m.Force(prev); err != nil {
			return fmt.Errorf("set back dirty version %d to %d: %w", dirty.Version, prev, err)
		}
		err = m.Up()
	}
	if errors.Is(err, migrate.ErrNoChange) {
		return nil
	}
	return err
}
