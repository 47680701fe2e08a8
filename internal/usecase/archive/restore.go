package archive

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/profile"
)

// Report is what an import did, area by area. Importing the same archive again reports
// everything as present (duplicates) and adds nothing.
type Report struct {
	// ProfileUpdated and SettingsUpdated say whether the profile's text and fields, or the
	// settings, differed from the archive's and were replaced.
	ProfileUpdated  bool        `json:"profile_updated"`
	SettingsUpdated bool        `json:"settings_updated"`
	Diary           DiaryReport `json:"diary"`
	Watchlist       Counts      `json:"watchlist"`
	Goals           Counts      `json:"goals"`
	// Following counts follow requests sent: a follow of a local account waits for its
	// acceptance as any follow does, a remote one goes out as an ActivityPub Follow.
	Following      Counts `json:"following"`
	Blocks         Counts `json:"blocks"`
	ImportProfiles Counts `json:"import_profiles"`
	// NotImported names what an archive holds that an import does not write, and why.
	NotImported []string `json:"not_imported"`
}

// DiaryReport is the diary's import: rows written, rows already there (the same movie on the
// same day), and rows that failed.
type DiaryReport struct {
	Rows       int       `json:"rows"`
	Imported   int       `json:"imported"`
	Duplicates int       `json:"duplicates"`
	Failed     []Skipped `json:"failed"`
}

// Counts are an area's entries added, already present, and skipped with the reason.
type Counts struct {
	Added   int       `json:"added"`
	Present int       `json:"present"`
	Skipped []Skipped `json:"skipped"`
}

// count adds one entry's outcome: added, already present, or skipped with a client's error
// saying why; an error of ours (the database) is returned and ends the area's import.
func (c *Counts) count(entry string, added bool, err error) error {
	switch {
	case err != nil && !skippable(err):
		return err
	case err != nil:
		c.Skipped = append(c.Skipped, Skipped{Entry: entry, Error: err.Error()})
	case added:
		c.Added++
	default:
		c.Present++
	}
	return nil
}

// Skipped is an entry not imported and why.
type Skipped struct {
	Entry string `json:"entry"`
	Error string `json:"error"`
}

// notImported is what Report.NotImported says every time.
var notImported = []string{
	fileFollowersJSON + ": followers cannot be moved; they follow the new account again themselves",
	fileWrapUpsJSON + ": wrap-ups are generated from the diary on this instance",
	fileProfile + ": the username, e-mail, images and also_known_as stay this account's",
	fileDiaryJSON + ": the same diary as " + fileDiaryCSV + ", which is the one imported",
}

// Import reads an account archive (r, size bytes) into user's account. The whole archive is
// checked first (open): a bad one is a KindInvalid error and nothing is written. Then settings,
// profile, goals, import profiles, the diary (through the diary import, quiet, deduplicated on
// the movie and the day), the watchlist (after the diary, since logging a review takes its movie
// off the watchlist), follows and blocks are written, each matched on its natural key so that a
// second import adds nothing. Movies keep their identity: a TMDb or IMDb id names the same movie
// on every instance. An entry this account cannot take (an unknown local user, a remote follow
// without federation) is reported, not fatal; an internal failure stops the import, which can
// be run again to finish.
func (s *Service) Import(ctx context.Context, user uuid.UUID, r io.ReaderAt, size int64) (Report, error) {
	c, err := open(r, size)
	if err != nil {
		return Report{}, err
	}
	me, err := s.d.Accounts.Get(ctx, user)
	if err != nil {
		return Report{}, err
	}
	rep := Report{NotImported: notImported, Diary: DiaryReport{Failed: []Skipped{}}}
	for _, step := range []func() error{
		func() (err error) { rep.SettingsUpdated, err = s.restoreSettings(ctx, user, c.settings); return err },
		func() (err error) { rep.ProfileUpdated, err = s.restoreProfile(ctx, me, c.profile); return err },
		func() (err error) { rep.Goals, err = s.restoreGoals(ctx, user, c.goals); return err },
		func() (err error) {
			rep.ImportProfiles, err = s.restoreImportProfiles(ctx, user, c.profiles)
			return err
		},
		func() (err error) { rep.Diary, err = s.restoreDiary(ctx, user, c); return err },
		func() (err error) { rep.Watchlist, err = s.restoreWatchlist(ctx, user, c.watchlist); return err },
		func() (err error) { rep.Following, err = s.restoreFollowing(ctx, me, c.following); return err },
		func() (err error) { rep.Blocks, err = s.restoreBlocks(ctx, me, c.blocks); return err },
	} {
		if err := step(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (s *Service) restoreSettings(ctx context.Context, user uuid.UUID, f *SettingsFile) (bool, error) {
	if f == nil {
		return false, nil
	}
	want := domain.FederationSettings{Reviews: f.Federation.Reviews, Watchlist: f.Federation.Watchlist, Goals: f.Federation.Goals}
	have, err := s.d.Settings.Settings(ctx, user)
	if err != nil {
		return false, err
	}
	changed := false
	if have != want {
		if err := s.d.Settings.SaveSettings(ctx, user, want); err != nil {
			return false, err
		}
		changed = true
	}
	public, err := s.d.WrapUps.Public(ctx, user)
	if err != nil {
		return false, err
	}
	if public != f.WrapUpsPublic {
		if err := s.d.WrapUps.SetPublic(ctx, user, f.WrapUpsPublic); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// restoreProfile sets the display name, bio and fields. The alias (also_known_as) is left: on
// the old account it pointed elsewhere, and on this one it would announce a move.
func (s *Service) restoreProfile(ctx context.Context, me domain.User, f *ProfileFile) (bool, error) {
	if f == nil {
		return false, nil
	}
	changed := false
	name, bio, _, err := domain.NewProfileText(f.DisplayName, f.Bio, "")
	if err != nil {
		return false, err
	}
	if name != me.Profile.DisplayName || bio != me.Profile.Bio {
		if err := s.d.Accounts.Update(ctx, profile.UpdateCommand{UserID: me.ID, DisplayName: name, Bio: bio,
			AlsoKnownAs: me.Profile.AlsoKnownAs}); err != nil {
			return false, err
		}
		changed = true
	}
	fields, err := domain.NewProfileFields(f.domainFields())
	if err != nil {
		return false, err
	}
	if !slices.Equal(fields, me.Profile.Fields) && !(len(fields) == 0 && len(me.Profile.Fields) == 0) {
		if err := s.d.Accounts.SetFields(ctx, me.ID, fields); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

func (s *Service) restoreGoals(ctx context.Context, user uuid.UUID, goals []Goal) (Counts, error) {
	out := Counts{Skipped: []Skipped{}}
	have, err := s.d.Goals.List(ctx, user)
	if err != nil {
		return out, err
	}
	for _, g := range goals {
		if slices.ContainsFunc(have, func(h domain.GoalProgress) bool { return h.Year == g.Year }) {
			out.Present++ // the account's own goal for that year stays
			continue
		}
		_, err := s.d.Goals.Create(ctx, user, g.Year, g.TargetCount)
		if err := out.count(strings.TrimSpace(g.record()[0]), true, err); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Service) restoreImportProfiles(ctx context.Context, user uuid.UUID, profiles []ImportProfile) (Counts, error) {
	out := Counts{Skipped: []Skipped{}}
	for _, p := range profiles {
		ms := make([]importer.Mapping, len(p.Mappings))
		for i, m := range p.Mappings {
			ms[i] = importer.Mapping{SourceColumn: m.SourceColumn, Field: importer.Field(m.Field), RatingScale: m.RatingScale, DateFormat: m.DateFormat}
		}
		added, err := s.d.Imports.RestoreProfile(ctx, user, p.Name, ms, p.CreatedAt)
		if err := out.count(p.Name, added, err); err != nil {
			return out, err
		}
	}
	return out, nil
}

// restoreDiary imports diary.csv through the diary import: recognised as this server's diary
// export, every row confirmed, quiet (federation does not announce a past diary).
func (s *Service) restoreDiary(ctx context.Context, user uuid.UUID, c *contents) (DiaryReport, error) {
	out := DiaryReport{Failed: []Skipped{}}
	if c.diary == nil {
		return out, nil
	}
	rc, err := c.diary.Open()
	if err != nil {
		return out, domain.Invalid("cannot read %s: %v", c.diary.Name, err)
	}
	defer rc.Close()
	created, err := s.d.Imports.Create(ctx, importer.Upload{UserID: user, Format: "csv", Filename: fileDiaryCSV, Body: rc})
	if err != nil {
		return out, err
	}
	if created.Session.Kind != importer.KindDiaryExport {
		return out, domain.Invalid("%s is not recognised as the diary export", fileDiaryCSV)
	}
	out.Rows = created.Session.RowCount
	if out.Rows == 0 {
		return out, nil
	}
	all := make([]int, out.Rows)
	for i := range all {
		all[i] = i
	}
	res, err := s.d.Imports.Confirm(ctx, user, created.Session.ID, all, false)
	if err != nil {
		return out, err
	}
	out.Imported, out.Duplicates = res.Imported, res.Duplicates
	for _, f := range res.Failed {
		out.Failed = append(out.Failed, Skipped{Entry: fileDiaryCSV + " row " + itoa(f.Index+2), Error: f.Error})
	}
	return out, nil
}

func (s *Service) restoreWatchlist(ctx context.Context, user uuid.UUID, entries []WatchlistEntry) (Counts, error) {
	out := Counts{Skipped: []Skipped{}}
	// The file is newest first; restoring oldest first keeps the order of equal added_at times.
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		title := e.Title
		req := movie.Request{ExternalID: deref(e.ExternalMetadataID), ManualTitle: &title, ManualDirector: e.Director}
		if e.Year > 0 {
			year := e.Year
			req.ManualYear = &year
		}
		added, err := s.d.Watchlist.Restore(ctx, user, req, e.AddedAt)
		if err := out.count(e.Title, added, err); err != nil {
			return out, err
		}
	}
	return out, nil
}

// restoreFollowing follows again whom the archive's account followed. A handle under this
// instance's domain is a local account, followed if it exists here; any other is a remote actor,
// followed through federation (a Follow activity from the outbox, as Mastodon's follow import
// does), which needs FEDERATION on. Either waits for the followed account's acceptance.
func (s *Service) restoreFollowing(ctx context.Context, me domain.User, actors []Actor) (Counts, error) {
	out := Counts{Skipped: []Skipped{}}
	have, err := s.d.Social.Following(ctx, me.ID)
	if err != nil {
		return out, err
	}
	present := s.actorSet(have)
	for _, a := range actors {
		target, local := s.target(a)
		switch {
		case present[a.ActorURL] || (local && present["@"+target]):
			out.Present++
			continue
		case local && target == me.Username:
			out.Skipped = append(out.Skipped, Skipped{Entry: a.Handle, Error: "this account itself"})
			continue
		}
		if err := out.count(a.Handle, true, s.d.Social.Follow(ctx, me.ID, target)); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Service) restoreBlocks(ctx context.Context, me domain.User, actors []Actor) (Counts, error) {
	out := Counts{Skipped: []Skipped{}}
	have, err := s.d.Social.Blocked(ctx, me.ID)
	if err != nil {
		return out, err
	}
	present := s.actorSet(have)
	for _, a := range actors {
		target, local := s.target(a)
		if present[a.ActorURL] || (local && present["@"+target]) {
			out.Present++
			continue
		}
		if local {
			u, err := s.d.Users.UserByUsername(ctx, target)
			if err != nil {
				if !skippable(err) {
					return out, err
				}
				out.Skipped = append(out.Skipped, Skipped{Entry: a.Handle, Error: "no such user on this instance"})
				continue
			}
			target = s.d.Social.ActorURL(u.ID)
		}
		if err := out.count(a.Handle, true, s.d.Social.Block(ctx, me.ID, target)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// target is what a follow or block of a names: a username when its handle is under this
// instance's domain (local), else its actor URL (or its handle when it has none).
func (s *Service) target(a Actor) (string, bool) {
	name, host, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(a.Handle), "@"), "@")
	if ok && strings.EqualFold(host, s.base.Host) && name != "" {
		return strings.ToLower(name), true
	}
	if a.ActorURL != "" {
		return a.ActorURL, false
	}
	return a.Handle, false
}

// actorSet keys the account's current follows or blocks by actor URL and, for local accounts,
// by "@username".
func (s *Service) actorSet(actors []domain.Actor) map[string]bool {
	set := map[string]bool{}
	for _, a := range actors {
		set[a.Identity.ID] = true
		if id, ok := a.Identity.UserID(); ok {
			set[s.d.Social.ActorURL(id)] = true
			set["@"+a.Username] = true
		}
	}
	return set
}

// skippable reports whether err is the entry's problem (reported) rather than ours (fatal).
func skippable(err error) bool {
	var de *domain.Error
	return errors.As(err, &de) && de.Kind != domain.KindInternal
}
