package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/archive"
	"moviesdiary/internal/usecase/profile"
	"moviesdiary/internal/usecase/wrapup"
)

// settingsPage is the viewer's profile, federation flags and goals.
type settingsPage struct {
	formState
	Profile    domain.Profile
	Federation domain.FederationSettings
	Goals      []domain.GoalProgress
	Year       int
	// Tokens and Queue are the webhook tokens and the pending watches; NewToken is one just
	// made, shown this once; Providers are the token form's choices.
	Tokens    []domain.WebhookToken
	Queue     []domain.WatchEvent
	NewToken  *newToken
	Providers []domain.WatchSource
	// Imports and Export offer the import form and the download link; Archive the account
	// archive's download and import form, ArchiveReport what an import just did.
	Imports, Export, Archive bool
	ArchiveReport            *archive.Report
	// PublicWrapUps is whether anyone may read the viewer's wrap-ups at their address.
	PublicWrapUps bool
	// FieldRows are the profile fields' form rows: the fields, then empty rows up to the limit.
	FieldRows []domain.ProfileField
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderSettings(w, r, v, http.StatusOK, formState{})
}

// renderSettings renders the settings page; with, when given, adds to its data (a token just
// made).
func (s *Server) renderSettings(w http.ResponseWriter, r *http.Request, v visit, status int, f formState, with ...func(*settingsPage)) error {
	ctx := r.Context()
	d := settingsPage{formState: f, Profile: v.me.Profile, Year: time.Now().UTC().Year(), Providers: webhookProviders,
		Imports: s.Imports != nil, Export: s.Export != nil, Archive: s.Archive != nil}
	var err error
	if d.Federation, err = s.Users.Settings(ctx, v.me.ID); err != nil {
		return err
	}
	if d.Goals, err = s.Goals.List(ctx, v.me.ID); err != nil {
		return err
	}
	if d.PublicWrapUps, err = s.WrapUps.Public(ctx, v.me.ID); err != nil {
		return err
	}
	if s.Integrations != nil {
		if d.Tokens, err = s.Integrations.Tokens(ctx, v.me.ID); err != nil {
			return err
		}
		if d.Queue, err = s.Integrations.Queue(ctx, v.me.ID); err != nil {
			return err
		}
	}
	d.FieldRows = make([]domain.ProfileField, domain.MaxProfileFields)
	copy(d.FieldRows, v.me.Profile.Fields)
	for _, f := range with {
		f(&d)
	}
	return s.render(w, r, v, status, "settings", "Settings", d)
}

// refused re-renders the settings with err's message, or returns a failure of ours.
func (s *Server) refusedSettings(w http.ResponseWriter, r *http.Request, v visit, err error) error {
	if statusOf(err) >= 500 {
		return err
	}
	return s.renderSettings(w, r, v, statusOf(err), formState{Err: messageOf(err)})
}

// upload is the bytes of a form's file field, nil when none was chosen.
func upload(r *http.Request, field string) ([]byte, error) {
	f, _, err := r.FormFile(field)
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return nil, nil
	}
	if err != nil {
		return nil, domain.Invalid("The %s could not be read.", field)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, profile.MaxImageBytes+1))
	if err != nil {
		return nil, domain.Invalid("The %s could not be read.", field)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return b, nil
}

func (s *Server) saveProfile(w http.ResponseWriter, r *http.Request, v visit) error {
	c := profile.UpdateCommand{UserID: v.me.ID, DisplayName: r.PostFormValue("display_name"),
		Bio: r.PostFormValue("bio"), AlsoKnownAs: r.PostFormValue("also_known_as")}
	var err error
	if c.Avatar, err = upload(r, "avatar"); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	if c.Banner, err = upload(r, "banner"); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	if err := s.Profiles.Update(r.Context(), c); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=saved")
}

// saveFields replaces the profile fields with the form's rows (field-name-N, field-value-N);
// a row left empty is dropped, one with a value and no name is refused by the use case.
func (s *Server) saveFields(w http.ResponseWriter, r *http.Request, v visit) error {
	var fields []domain.ProfileField
	for i := range domain.MaxProfileFields {
		f := domain.ProfileField{Name: r.PostFormValue("field-name-" + strconv.Itoa(i)),
			Value: r.PostFormValue("field-value-" + strconv.Itoa(i))}
		if strings.TrimSpace(f.Name) != "" || strings.TrimSpace(f.Value) != "" {
			fields = append(fields, f)
		}
	}
	if err := s.Profiles.SetFields(r.Context(), v.me.ID, fields); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=saved")
}

func (s *Server) saveFederation(w http.ResponseWriter, r *http.Request, v visit) error {
	fs := domain.FederationSettings{Reviews: r.PostFormValue("reviews") == "on",
		Watchlist: r.PostFormValue("watchlist") == "on", Goals: r.PostFormValue("goals") == "on"}
	if err := s.Users.SaveSettings(r.Context(), v.me.ID, fs); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=saved")
}

// saveGoal sets the target of a year's goal: creates it, or updates it when it exists; a target
// of 0 deletes it.
func (s *Server) saveGoal(w http.ResponseWriter, r *http.Request, v visit) error {
	year, err1 := strconv.Atoi(r.PostFormValue("year"))
	target, err2 := strconv.Atoi(r.PostFormValue("target"))
	if err1 != nil || err2 != nil {
		return s.refusedSettings(w, r, v, domain.Invalid("The year and the target must be numbers."))
	}
	ctx := r.Context()
	goals, err := s.Goals.List(ctx, v.me.ID)
	if err != nil {
		return err
	}
	exists := false
	for _, g := range goals {
		exists = exists || g.Year == year
	}
	switch {
	case target == 0 && exists:
		err = s.Goals.Delete(ctx, v.me.ID, year)
	case exists:
		_, err = s.Goals.Update(ctx, v.me.ID, year, target)
	default:
		_, err = s.Goals.Create(ctx, v.me.ID, year, target)
	}
	if err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=saved")
}

// domainsPage is the admin's list of blocked domains.
type domainsPage struct {
	formState
	Blocks []domain.DomainBlock
}

func (s *Server) domains(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderDomains(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderDomains(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	blocks, err := s.Moderation.DomainBlocks(r.Context(), v.me.ID)
	if err != nil {
		return err
	}
	return s.render(w, r, v, status, "domains", "Blocked domains", domainsPage{formState: f, Blocks: blocks})
}

// domainAction blocks (host, reason) or, with unblock set, unblocks a domain.
func (s *Server) domainAction(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx, host := r.Context(), r.PostFormValue("host")
	var err error
	done := "domain-blocked"
	if r.PostFormValue("unblock") != "" {
		err, done = s.Moderation.UnblockDomain(ctx, v.me.ID, host), "domain-unblocked"
	} else {
		err = s.Moderation.BlockDomain(ctx, v.me.ID, host, r.PostFormValue("reason"))
	}
	if err != nil {
		if st := statusOf(err); st >= 500 || st == http.StatusForbidden {
			return err
		}
		return s.renderDomains(w, r, v, statusOf(err), formState{Err: messageOf(err), Values: formValues(r, "host", "reason")})
	}
	return redirect(w, r, "/admin/domains?done="+done)
}

// wrapUpsPage lists the viewer's wrap-ups and the instance's; an admin also gets the request
// form.
type wrapUpsPage struct {
	formState
	WrapUps []wrapUpItem
	Year    int
}

// wrapUpItem is a wrap-up in the list, with its stable address when it covers a calendar year.
type wrapUpItem struct {
	domain.WrapUp
	Share string
}

func (s *Server) wrapUps(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderWrapUps(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderWrapUps(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	ctx := r.Context()
	d := wrapUpsPage{formState: f, Year: time.Now().UTC().Year()}
	list, err := s.WrapUps.List(ctx, v.me.ID)
	if err != nil {
		return err
	}
	for _, wu := range list {
		item := wrapUpItem{WrapUp: wu}
		if wu.Status != domain.WrapUpFailed { // the address names the live one
			item.Share = shareLink(wu)
		}
		d.WrapUps = append(d.WrapUps, item)
	}
	return s.render(w, r, v, status, "wrapups", "Wrap-ups", d)
}

// shareLink is the stable address of a wrap-up of a calendar year (/u/{id}/wrapup/{year}, or
// /wrapup/{year} for the instance's), "" for another range.
func shareLink(wu domain.WrapUp) string {
	year, ok := wrapup.CalendarYear(wu)
	if !ok {
		return ""
	}
	if wu.UserID == nil {
		return "/wrapup/" + strconv.Itoa(year)
	}
	return "/u/" + wu.UserID.String() + "/wrapup/" + strconv.Itoa(year)
}

// generateWrapUp requests a wrap-up of a year, for a user (the username typed) or the instance
// (none).
func (s *Server) generateWrapUp(w http.ResponseWriter, r *http.Request, v visit) error {
	year := r.PostFormValue("year")
	c := wrapup.GenerateCommand{Admin: v.me.ID, StartDate: year + "-01-01", EndDate: year + "-12-31"}
	var err error
	if c.UserID, err = s.userNamed(r, strings.TrimSpace(r.PostFormValue("user"))); err == nil {
		_, err = s.WrapUps.Generate(r.Context(), c)
	}
	if err != nil {
		if st := statusOf(err); st >= 500 || st == http.StatusForbidden {
			return err
		}
		return s.renderWrapUps(w, r, v, statusOf(err), formState{Err: messageOf(err)})
	}
	return redirect(w, r, "/wrapups?done=requested")
}

// wrapUpPage is one wrap-up with its report once it is ready, its owner's name and page, and its
// stable address.
type wrapUpPage struct {
	WrapUp    domain.WrapUp
	Report    *wrapup.Report
	Owner     string
	OwnerLink string
	// Share is its stable address, ShareURL the same in full (BASE_URL), to copy.
	Share, ShareURL string
	// Private tells its owner that nobody else may read it yet.
	Private bool
}

// wrapUp is a wrap-up by id: the viewer's, the instance's, or any for an admin.
func (s *Server) wrapUp(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	wu, err := s.WrapUps.Get(r.Context(), v.me.ID, id)
	if err != nil {
		return err
	}
	return s.renderWrapUp(w, r, v, wu)
}

// sharedWrapUp is the stable, shareable page of a user's wrap-up of a year (/u/{id}/wrapup/{year})
// or, without {id}, the instance's (/wrapup/{year}). Who may read it is the use case's rule: a
// private one is 404 to anyone but its owner and the admins.
func (s *Server) sharedWrapUp(w http.ResponseWriter, r *http.Request, v visit) error {
	year, err := strconv.Atoi(chi.URLParam(r, "year"))
	if err != nil {
		return domain.NotFound("No such page.")
	}
	var owner *uuid.UUID
	if chi.URLParam(r, "id") != "" {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		owner = &id
	}
	var viewer *uuid.UUID
	if v.signedIn() {
		viewer = &v.me.ID
	}
	wu, err := s.WrapUps.Shared(r.Context(), viewer, owner, year)
	if err != nil {
		return err
	}
	return s.renderWrapUp(w, r, v, wu)
}

func (s *Server) renderWrapUp(w http.ResponseWriter, r *http.Request, v visit, wu domain.WrapUp) error {
	d := wrapUpPage{WrapUp: wu, Owner: "the whole instance", Share: shareLink(wu)}
	if d.Share != "" {
		d.ShareURL = s.BaseURL + d.Share
	}
	if wu.UserID != nil {
		u, err := s.Profiles.Get(r.Context(), *wu.UserID)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		d.Owner, d.OwnerLink = displayName(u), "/u/"+wu.UserID.String()
		if v.signedIn() && v.me.ID == *wu.UserID {
			public, err := s.WrapUps.Public(r.Context(), v.me.ID)
			if err != nil {
				return err
			}
			d.Private = !public
		}
	}
	if wu.Status == domain.WrapUpReady && len(wu.Report) > 0 {
		var rep wrapup.Report
		if err := json.Unmarshal(wu.Report, &rep); err != nil {
			return err
		}
		d.Report = &rep
	}
	title := "Wrap-up " + wu.StartDate.String() + " – " + wu.EndDate.String()
	if d.Share != "" {
		title = "Wrap-up " + strconv.Itoa(wu.StartDate.Time().Year())
	}
	return s.render(w, r, v, http.StatusOK, "wrapup", title, d)
}

// saveWrapUpVisibility makes the viewer's wrap-ups public (the "public" box ticked) or private.
func (s *Server) saveWrapUpVisibility(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.WrapUps.SetPublic(r.Context(), v.me.ID, r.PostFormValue("public") == "on"); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=saved")
}

// userNamed is the id of the local user with that username, nil for "". The user list is read
// only here, on the form's post: it is the slowest read of the instance, too slow for a page.
func (s *Server) userNamed(r *http.Request, name string) (*uuid.UUID, error) {
	if name == "" {
		return nil, nil
	}
	users, err := s.Users.List(r.Context(), uuid.Nil)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if strings.EqualFold(u.User.Username, strings.TrimPrefix(name, "@")) {
			return &u.User.ID, nil
		}
	}
	return nil, domain.NotFound("No user is named %q.", name)
}
