package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// webhookTokenColumns are the columns of webhookTokenRow.
const webhookTokenColumns = `id, user_id, provider, label, token_hash, auto_confirm_rating, created_at, last_used_at`

// webhookTokenRow is a webhook_tokens row.
type webhookTokenRow struct {
	ID                uuid.UUID        `db:"id"`
	UserID            uuid.UUID        `db:"user_id"`
	Provider          string           `db:"provider"`
	Label             sql.Null[string] `db:"label"`
	Hash              string           `db:"token_hash"`
	AutoConfirmRating sql.Null[int]    `db:"auto_confirm_rating"`
	CreatedAt         int64            `db:"created_at"`
	LastUsedAt        sql.Null[int64]  `db:"last_used_at"`
}

func (r webhookTokenRow) token() (domain.WebhookToken, error) {
	t := domain.WebhookToken{
		ID: r.ID, UserID: r.UserID, Provider: domain.WatchSource(r.Provider), Label: sqlrow.Ptr(r.Label), Hash: r.Hash,
		AutoConfirmRating: sqlrow.Ptr(r.AutoConfirmRating), CreatedAt: time.UnixMilli(r.CreatedAt).UTC(),
	}
	if r.LastUsedAt.Valid {
		t.LastUsedAt = sqlrow.Ref(time.UnixMilli(r.LastUsedAt.V).UTC())
	}
	return t, nil
}

// CreateWebhookToken stores a token (its hash). No event: nothing outside the database reacts to
// a token.
func (s *Store) CreateWebhookToken(ctx context.Context, t domain.WebhookToken) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_tokens (`+webhookTokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
			t.ID.String(), t.UserID.String(), string(t.Provider), sqlrow.NullString(t.Label), t.Hash,
			sqlrow.NullOf(t.AutoConfirmRating), sqlrow.Millis(t.CreatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("create webhook token: %w", err)
	}
	return nil
}

// WebhookTokens lists a user's tokens, oldest first.
func (s *Store) WebhookTokens(ctx context.Context, userID uuid.UUID) ([]domain.WebhookToken, error) {
	var rows []webhookTokenRow
	err := s.read.SelectContext(ctx, &rows, `SELECT `+webhookTokenColumns+` FROM webhook_tokens WHERE user_id = ?
		ORDER BY created_at, id`, userID.String())
	if err != nil {
		return nil, fmt.Errorf("list webhook tokens: %w", err)
	}
	out, err := sqlrow.MapRows(rows, webhookTokenRow.token)
	if out == nil {
		out = []domain.WebhookToken{}
	}
	return out, err
}

// DeleteWebhookToken deletes one of the user's tokens; another user's is not found.
func (s *Store) DeleteWebhookToken(ctx context.Context, userID, id uuid.UUID) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_tokens WHERE id = ? AND user_id = ?`, id.String(), userID.String())
		if err != nil {
			return fmt.Errorf("delete webhook token: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.NotFound("Entity not found: webhook token %s", id)
		}
		return nil
	})
}

// UseWebhookToken returns the provider's token with that hash and records its use at now, in
// one write.
func (s *Store) UseWebhookToken(ctx context.Context, hash string, provider domain.WatchSource, now time.Time) (domain.WebhookToken, error) {
	var row webhookTokenRow
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &row, `UPDATE webhook_tokens SET last_used_at = ? WHERE token_hash = ? AND provider = ?
			RETURNING `+webhookTokenColumns, sqlrow.Millis(now), hash, string(provider))
		if err != nil {
			return sqlrow.NotFound(err, "Entity not found: webhook token")
		}
		return nil
	})
	if err != nil {
		return domain.WebhookToken{}, err
	}
	return row.token()
}
