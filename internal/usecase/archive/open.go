package archive

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"
	"strings"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/review"
)

// contents is an archive checked and read, but for the diary, which is read when it is imported.
type contents struct {
	manifest  Manifest
	profile   *ProfileFile
	settings  *SettingsFile
	diary     *zip.File
	watchlist []WatchlistEntry
	goals     []Goal
	following []Actor
	blocks    []Actor
	profiles  []ImportProfile
}

// open checks an uploaded archive before anything is written: a zip (not anything else), at most
// the known files, each once, under a plain name (no directories, no "..": a path traversal is
// refused, not cleaned), their uncompressed sizes within MaxUncompressedBytes (so a zip bomb is
// refused from its directory, and archive/zip fails a file that inflates beyond its declared
// size), a manifest of this format and version, and every file this import reads well formed.
// Each failure is a KindInvalid error saying what is wrong.
func open(r io.ReaderAt, size int64) (*contents, error) {
	if size > MaxBytes {
		return nil, domain.Invalid("the archive is %d bytes, more than the %d an archive may have", size, MaxBytes)
	}
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, domain.Invalid("not a zip archive: %v", err)
	}
	if len(z.File) > len(Files) {
		return nil, domain.Invalid("the archive holds %d files; an account archive has at most %d", len(z.File), len(Files))
	}
	byName := map[string]*zip.File{}
	var total uint64
	for _, f := range z.File {
		name := f.Name
		if name == "" || strings.ContainsAny(name, `\:`) || strings.HasPrefix(name, "/") || path.Clean(name) != name ||
			slices.Contains(strings.Split(name, "/"), "..") {
			return nil, domain.Invalid("unsafe file name %q in the archive", name)
		}
		if !slices.Contains(Files, name) {
			return nil, domain.Invalid("unexpected file %q in the archive (an account archive holds %s)", name, strings.Join(Files, ", "))
		}
		if byName[name] != nil {
			return nil, domain.Invalid("the archive holds %q twice", name)
		}
		byName[name] = f
		total += f.UncompressedSize64
		if total > MaxUncompressedBytes {
			return nil, domain.Invalid("the archive's files uncompress to more than %d bytes", MaxUncompressedBytes)
		}
	}
	c := &contents{diary: byName[fileDiaryCSV]}
	mf := byName[fileManifest]
	if mf == nil {
		return nil, domain.Invalid("the zip has no %s: it is not an account archive", fileManifest)
	}
	if err := readJSON(mf, &c.manifest); err != nil {
		return nil, err
	}
	if c.manifest.Format != Format {
		return nil, domain.Invalid("%s names format %q, not %q", fileManifest, c.manifest.Format, Format)
	}
	if c.manifest.Version != Version {
		return nil, domain.Invalid("unknown archive version %d: this server reads version %d", c.manifest.Version, Version)
	}
	for _, part := range []struct {
		name string
		into any
	}{
		{fileProfile, &c.profile}, {fileSettings, &c.settings}, {fileWatchlistJSON, &c.watchlist}, {fileGoalsJSON, &c.goals},
		{fileFollowingJSON, &c.following}, {fileBlocksJSON, &c.blocks}, {fileImportProfiles, &c.profiles},
	} {
		if f := byName[part.name]; f != nil {
			if err := readJSON(f, part.into); err != nil {
				return nil, err
			}
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// readJSON decodes one file of the archive.
func readJSON(f *zip.File, into any) error {
	if f.UncompressedSize64 > maxSmallFileBytes {
		return domain.Invalid("%s is larger than %d bytes", f.Name, maxSmallFileBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return domain.Invalid("cannot read %s: %v", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxSmallFileBytes+1))
	if err != nil {
		return domain.Invalid("cannot read %s: %v", f.Name, err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return domain.Invalid("%s is not valid: %v", f.Name, err)
	}
	return nil
}

// check validates what the import will write, so a bad value is refused before anything is.
func (c *contents) check() error {
	if p := c.profile; p != nil {
		if _, _, _, err := domain.NewProfileText(p.DisplayName, p.Bio, ""); err != nil {
			return domain.Invalid("%s: %v", fileProfile, err)
		}
		if _, err := domain.NewProfileFields(p.domainFields()); err != nil {
			return domain.Invalid("%s: %v", fileProfile, err)
		}
	}
	for _, g := range c.goals {
		if err := errors.Join(domain.ValidateGoalYear(g.Year), domain.ValidateGoalTarget(g.TargetCount)); err != nil {
			return domain.Invalid("%s: goal %d: %v", fileGoalsJSON, g.Year, err)
		}
	}
	for _, list := range []struct {
		name   string
		actors []Actor
	}{{fileFollowingJSON, c.following}, {fileBlocksJSON, c.blocks}} {
		for i, a := range list.actors {
			if strings.TrimSpace(a.Handle) == "" && strings.TrimSpace(a.ActorURL) == "" {
				return domain.Invalid("%s: entry %d has neither a handle nor an actor_url", list.name, i)
			}
		}
	}
	if c.diary != nil {
		if c.diary.UncompressedSize64 > importer.MaxFileBytes {
			return domain.Invalid("%s is larger than the %d bytes the diary import reads", fileDiaryCSV, importer.MaxFileBytes)
		}
		return checkDiaryHeader(c.diary)
	}
	return nil
}

// checkDiaryHeader makes sure diary.csv is the diary export the importer recognises.
func checkDiaryHeader(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return domain.Invalid("cannot read %s: %v", f.Name, err)
	}
	defer rc.Close()
	var first bytes.Buffer
	if _, err := io.Copy(&first, io.LimitReader(rc, 4096)); err != nil {
		return domain.Invalid("cannot read %s: %v", f.Name, err)
	}
	line, _, _ := strings.Cut(first.String(), "\n")
	header, err := csv.NewReader(strings.NewReader(line)).Read()
	if err != nil || len(header) < len(review.ExportHeader) || !slices.Equal(header[:len(review.ExportHeader)], review.ExportHeader) {
		return domain.Invalid("%s does not start with the diary export's header (%s)", f.Name, strings.Join(review.ExportHeader, ","))
	}
	return nil
}

func (p ProfileFile) domainFields() []domain.ProfileField {
	out := make([]domain.ProfileField, len(p.Fields))
	for i, f := range p.Fields {
		out[i] = domain.ProfileField(f)
	}
	return out
}
