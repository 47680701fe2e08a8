package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
)

// webhookTokenRequest is POST /settings/webhook-tokens. auto_confirm_rating is this server's
// addition (absent: off): each accepted watch becomes a review with that rating at once.
type webhookTokenRequest struct {
	Provider          *string `json:"provider"`
	Label             *string `json:"label"`
	AutoConfirmRating *int    `json:"auto_confirm_rating" openapi:"minimum=1,maximum=5"`
}

// webhookTokenCreated shows the token once, with the URL to paste into the media server.
type webhookTokenCreated struct {
	ID         uuid.UUID `json:"id"`
	Token      string    `json:"token"`
	WebhookURL string    `json:"webhook_url"`
}

// webhookTokenDTO is a token as GET lists it; never the token itself.
type webhookTokenDTO struct {
	ID                uuid.UUID `json:"id"`
	Provider          string    `json:"provider"`
	Label             *string   `json:"label"`
	CreatedAt         string    `json:"created_at" openapi:"format=naive-date-time"`
	LastUsedAt        *string   `json:"last_used_at" openapi:"format=naive-date-time"`
	AutoConfirmRating *int      `json:"auto_confirm_rating"`
}

func (s *Server) createWebhookToken(w http.ResponseWriter, r *http.Request) error {
	var req webhookTokenRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Provider == nil {
		return required("provider")
	}
	t, secret, err := s.Integrations.CreateToken(r.Context(), currentUser(r), integration.TokenRequest{
		Provider: *req.Provider, Label: req.Label, AutoConfirmRating: req.AutoConfirmRating,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, webhookTokenCreated{ID: t.ID, Token: secret,
		WebhookURL: s.BaseURL + "/api/v1/webhooks/" + string(t.Provider)})
	return nil
}

func (s *Server) listWebhookTokens(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.Integrations.Tokens(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]webhookTokenDTO, 0, len(ts))
	for _, t := range ts {
		out = append(out, toWebhookToken(t))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func toWebhookToken(t domain.WebhookToken) webhookTokenDTO {
	d := webhookTokenDTO{ID: t.ID, Provider: string(t.Provider), Label: t.Label, CreatedAt: naiveTime(t.CreatedAt),
		AutoConfirmRating: t.AutoConfirmRating}
	if t.LastUsedAt != nil {
		used := naiveTime(*t.LastUsedAt)
		d.LastUsedAt = &used
	}
	return d
}
