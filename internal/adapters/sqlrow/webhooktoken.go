package sqlrow

import (
	"database/sql"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// WebhookTokenColumns are the columns of WebhookToken.
const WebhookTokenColumns = `id, user_id, provider, label, token_hash, auto_confirm_rating, created_at, last_used_at`

// WebhookToken is a webhook_tokens row.
type WebhookToken struct {
	ID                uuid.UUID        `db:"id"`
	UserID            uuid.UUID        `db:"user_id"`
	Provider          string           `db:"provider"`
	Label             sql.Null[string] `db:"label"`
	Hash              string           `db:"token_hash"`
	AutoConfirmRating sql.Null[int]    `db:"auto_confirm_rating"`
	CreatedAt         int64            `db:"created_at"`
	LastUsedAt        sql.Null[int64]  `db:"last_used_at"`
}

// WebhookToken maps the row to its domain value.
func (r WebhookToken) WebhookToken() (domain.WebhookToken, error) {
	t := domain.WebhookToken{
		ID: r.ID, UserID: r.UserID, Provider: domain.WatchSource(r.Provider), Label: Ptr(r.Label), Hash: r.Hash,
		AutoConfirmRating: Ptr(r.AutoConfirmRating), CreatedAt: time.UnixMilli(r.CreatedAt).UTC(),
	}
	if r.LastUsedAt.Valid {
		t.LastUsedAt = Ref(time.UnixMilli(r.LastUsedAt.V).UTC())
	}
	return t, nil
}
