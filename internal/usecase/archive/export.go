package archive

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// Service writes and reads account archives.
type Service struct {
	d    Deps
	base *url.URL
	now  func() time.Time
}

// NewService builds the service; BaseURL must be an absolute URL.
func NewService(d Deps) (*Service, error) {
	u, err := url.Parse(strings.TrimRight(d.BaseURL, "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("archive: base URL %q is not an absolute URL", d.BaseURL)
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	return &Service{d: d, base: u, now: now}, nil
}

// watchlistPage is how many watchlist entries one read fetches.
const watchlistPage = 100

// Export writes user's archive to w as a zip, one file after the other, each streamed from its
// source a batch at a time: the diary is read twice (CSV, then JSON) rather than held. The
// account is read before the first byte is written, so an unknown user fails with nothing
// written; a later failure leaves a truncated zip, which the caller must not pass off as whole.
func (s *Service) Export(ctx context.Context, user uuid.UUID, w io.Writer) error {
	u, err := s.d.Accounts.Get(ctx, user)
	if err != nil {
		return err
	}
	at := s.now().UTC().Truncate(time.Second)
	z := zip.NewWriter(w)
	create := func(name string) (io.Writer, error) {
		return z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: at})
	}
	writeJSON := func(name string, v any) error {
		f, err := create(name)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}

	manifest := Manifest{Format: Format, Version: Version, Instance: s.base.String(), ExportedAt: at,
		User:  Owner{ID: u.ID, Username: u.Username, Handle: u.Username + "@" + s.base.Host, ActorURL: s.d.Social.ActorURL(u.ID)},
		Files: Files}
	if err := writeJSON(fileManifest, manifest); err != nil {
		return err
	}
	if err := writeJSON(fileProfile, profileFile(u)); err != nil {
		return err
	}
	settings, err := s.settings(ctx, user)
	if err != nil {
		return err
	}
	if err := writeJSON(fileSettings, settings); err != nil {
		return err
	}

	diary := func(yield func(review.Entry) error) error { return s.d.Diary.Export(ctx, user, yield) }
	if err := writeCSV(create, fileDiaryCSV, review.ExportHeader, diary, func(e review.Entry) []string { return review.NewExportRow(e).Record() }); err != nil {
		return fmt.Errorf("archive diary: %w", err)
	}
	if err := writeArray(create, fileDiaryJSON, diary, review.NewExportRow); err != nil {
		return fmt.Errorf("archive diary: %w", err)
	}

	wl := func(yield func(WatchlistEntry) error) error { return s.watchlist(ctx, user, yield) }
	if err := writeBoth(create, fileWatchlistCSV, fileWatchlistJSON, watchlistHeader, wl, WatchlistEntry.record); err != nil {
		return fmt.Errorf("archive watchlist: %w", err)
	}
	goals, err := s.goals(ctx, user)
	if err != nil {
		return err
	}
	if err := writeBoth(create, fileGoalsCSV, fileGoalsJSON, goalsHeader, each(goals), Goal.record); err != nil {
		return err
	}
	for _, l := range []struct {
		csv, json string
		list      func(context.Context, uuid.UUID) ([]domain.Actor, error)
	}{
		{fileFollowingCSV, fileFollowingJSON, s.d.Social.Following},
		{fileFollowersCSV, fileFollowersJSON, s.d.Social.Followers},
		{fileBlocksCSV, fileBlocksJSON, s.d.Social.Blocked},
	} {
		actors, err := l.list(ctx, user)
		if err != nil {
			return fmt.Errorf("archive %s: %w", l.json, err)
		}
		out := make([]Actor, len(actors))
		for i, a := range actors {
			out[i] = s.actor(a)
		}
		if err := writeBoth(create, l.csv, l.json, actorHeader, each(out), Actor.record); err != nil {
			return err
		}
	}
	wrapups, err := s.wrapups(ctx, user)
	if err != nil {
		return err
	}
	if err := writeArray(create, fileWrapUpsJSON, each(wrapups), func(w WrapUp) WrapUp { return w }); err != nil {
		return err
	}
	profiles, err := s.d.Imports.Profiles(ctx, user)
	if err != nil {
		return err
	}
	ips := make([]ImportProfile, len(profiles))
	for i, p := range profiles {
		ips[i] = ImportProfile{Name: p.Name, CreatedAt: p.CreatedAt.UTC(), Mappings: make([]Mapping, len(p.Mappings))}
		for j, m := range p.Mappings {
			ips[i].Mappings[j] = Mapping{SourceColumn: m.SourceColumn, Field: string(m.Field), RatingScale: m.RatingScale, DateFormat: m.DateFormat}
		}
	}
	if err := writeArray(create, fileImportProfiles, each(ips), func(p ImportProfile) ImportProfile { return p }); err != nil {
		return err
	}
	return z.Close()
}

func profileFile(u domain.User) ProfileFile {
	p := ProfileFile{Username: u.Username, Email: u.Email, CreatedAt: u.CreatedAt.UTC(), DisplayName: u.Profile.DisplayName,
		Bio: u.Profile.Bio, AlsoKnownAs: u.Profile.AlsoKnownAs, AvatarKey: u.Profile.AvatarKey, BannerKey: u.Profile.BannerKey,
		Fields: []ProfileField{}}
	for _, f := range u.Profile.Fields {
		p.Fields = append(p.Fields, ProfileField(f))
	}
	return p
}

func (s *Service) settings(ctx context.Context, user uuid.UUID) (SettingsFile, error) {
	var out SettingsFile
	fs, err := s.d.Settings.Settings(ctx, user)
	if err != nil {
		return out, err
	}
	out.Federation.Reviews, out.Federation.Watchlist, out.Federation.Goals = fs.Reviews, fs.Watchlist, fs.Goals
	if out.WrapUpsPublic, err = s.d.WrapUps.Public(ctx, user); err != nil {
		return out, err
	}
	return out, nil
}

// watchlist yields the user's watchlist a page at a time, newest first.
func (s *Service) watchlist(ctx context.Context, user uuid.UUID, yield func(WatchlistEntry) error) error {
	for offset := 0; ; offset += watchlistPage {
		page, err := s.d.Watchlist.List(ctx, user, domain.Page{Limit: watchlistPage, Offset: offset})
		if err != nil {
			return err
		}
		for _, e := range page.Items {
			if err := yield(WatchlistEntry{Title: e.Movie.Title, Year: e.Movie.ReleaseYear, Director: e.Movie.Director,
				ExternalMetadataID: e.Movie.ExternalID, AddedAt: e.AddedAt.UTC()}); err != nil {
				return err
			}
		}
		if len(page.Items) < watchlistPage {
			return nil
		}
	}
}

func (s *Service) goals(ctx context.Context, user uuid.UUID) ([]Goal, error) {
	gs, err := s.d.Goals.List(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]Goal, len(gs))
	for i, g := range gs {
		out[i] = Goal{Year: g.Year, TargetCount: g.TargetCount}
	}
	return out, nil
}

// wrapups are the user's own wrap-ups (not the instance-wide ones) with their reports.
func (s *Service) wrapups(ctx context.Context, user uuid.UUID) ([]WrapUp, error) {
	ws, err := s.d.WrapUps.List(ctx, user)
	if err != nil {
		return nil, err
	}
	out := []WrapUp{}
	for _, w := range ws {
		if w.UserID == nil || *w.UserID != user {
			continue
		}
		var report any
		if len(w.Report) > 0 {
			report = w.Report
		}
		out = append(out, WrapUp{ID: w.ID, StartDate: w.StartDate.String(), EndDate: w.EndDate.String(), Status: string(w.Status),
			CreatedAt: w.CreatedAt.UTC(), CompletedAt: w.CompletedAt, Report: report})
	}
	return out, nil
}

// actor is a follow graph entry as the archive names it: user@domain, a local account under
// this instance's domain.
func (s *Service) actor(a domain.Actor) Actor {
	if id, ok := a.Identity.UserID(); ok {
		return Actor{Handle: a.Username + "@" + s.base.Host, ActorURL: s.d.Social.ActorURL(id), DisplayName: a.DisplayName}
	}
	handle := a.Identity.ID
	if u, err := url.Parse(a.Identity.ID); err == nil && u.Host != "" && a.Username != "" {
		handle = a.Username + "@" + u.Host
	}
	return Actor{Handle: handle, ActorURL: a.Identity.ID, DisplayName: a.DisplayName}
}

func (e WatchlistEntry) record() []string {
	year := ""
	if e.Year > 0 {
		year = strconv.Itoa(e.Year)
	}
	return []string{e.Title, year, deref(e.Director), deref(e.ExternalMetadataID), e.AddedAt.UTC().Format(time.RFC3339)}
}

func (g Goal) record() []string { return []string{strconv.Itoa(g.Year), strconv.Itoa(g.TargetCount)} }

func (a Actor) record() []string { return []string{a.Handle, a.ActorURL, deref(a.DisplayName)} }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// each yields the items of a slice.
func each[T any](items []T) func(func(T) error) error {
	return func(yield func(T) error) error {
		for _, it := range items {
			if err := yield(it); err != nil {
				return err
			}
		}
		return nil
	}
}

type createFunc func(name string) (io.Writer, error)

// writeBoth writes a list as a CSV file and as a JSON file, reading it once for each.
func writeBoth[T any](create createFunc, csvName, jsonName string, header []string, items func(func(T) error) error, record func(T) []string) error {
	if err := writeCSV(create, csvName, header, items, record); err != nil {
		return err
	}
	return writeArray(create, jsonName, items, func(t T) T { return t })
}

// writeCSV writes a header and one record per item.
func writeCSV[T any](create createFunc, name string, header []string, items func(func(T) error) error, record func(T) []string) error {
	f, err := create(name)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		return err
	}
	if err := items(func(t T) error { return w.Write(record(t)) }); err != nil {
		return err
	}
	w.Flush()
	return w.Error()
}

// writeArray writes a JSON array, one element per line.
func writeArray[T, J any](create createFunc, name string, items func(func(T) error) error, shape func(T) J) error {
	f, err := create(name)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, "["); err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	n := 0
	err = items(func(t T) error {
		if n > 0 {
			if _, err := io.WriteString(f, ","); err != nil {
				return err
			}
		}
		n++
		return enc.Encode(shape(t))
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, "]\n")
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }
