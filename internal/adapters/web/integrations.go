package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
)

// newToken is a webhook token just made: the page that answers its form is the only one that
// ever shows the secret.
type newToken struct {
	Provider   string
	Token      string
	WebhookURL string
}

// webhookProviders are the media servers a token may be made for, in the form's order.
var webhookProviders = []domain.WatchSource{domain.SourceJellyfin, domain.SourcePlex, domain.SourceEmby}

// createToken makes a webhook token for a provider and label and shows it once, with the URL
// to paste into the media server; the answer is the settings page itself, never a redirect, so
// the secret is in no URL and no history entry.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request, v visit) error {
	req := integration.TokenRequest{Provider: r.PostFormValue("provider")}
	if l := r.PostFormValue("label"); l != "" {
		req.Label = &l
	}
	if a := r.PostFormValue("auto_confirm_rating"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil {
			return s.refusedSettings(w, r, v, domain.Invalid("The rating must be a number from 1 to 5."))
		}
		req.AutoConfirmRating = &n
	}
	t, secret, err := s.Integrations.CreateToken(r.Context(), v.me.ID, req)
	if err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return s.renderSettings(w, r, v, http.StatusOK, formState{}, func(d *settingsPage) {
		d.NewToken = &newToken{Provider: string(t.Provider), Token: secret,
			WebhookURL: s.BaseURL + "/api/v1/webhooks/" + string(t.Provider)}
	})
}

func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.Integrations.RevokeToken(r.Context(), v.me.ID, id); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=token-deleted#webhooks")
}

// confirmWatch logs a queued watch as a review with the rating (and comment) given.
func (s *Server) confirmWatch(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rating, err := strconv.Atoi(r.PostFormValue("rating"))
	if err != nil {
		return s.refusedSettings(w, r, v, domain.Invalid("Choose a rating from 1 to 5."))
	}
	c := integration.Confirmation{WatchEventID: id, Rating: rating}
	if cm := strings.TrimSpace(r.PostFormValue("comment")); cm != "" {
		c.Comment = &cm
	}
	if _, err := s.Integrations.Confirm(r.Context(), v.me.ID, []integration.Confirmation{c}); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=watch-confirmed#queue")
}

func (s *Server) dismissWatch(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := s.Integrations.Dismiss(r.Context(), v.me.ID, []uuid.UUID{id}); err != nil {
		return s.refusedSettings(w, r, v, err)
	}
	return redirect(w, r, "/settings?done=watch-dismissed#queue")
}
