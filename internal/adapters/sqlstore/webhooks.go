package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// CreateWebhookToken stores a token (its hash). No event: nothing outside the database reacts to
// a token.
func (s *Store) CreateWebhookToken(ctx context.Context, t domain.WebhookToken) error {
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_tokens (`+sqlrow.WebhookTokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
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
	var rows []sqlrow.WebhookToken
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.WebhookTokenColumns+` FROM webhook_tokens WHERE user_id = ?
		ORDER BY created_at, id`, userID.String())
	if err != nil {
		return nil, fmt.Errorf("list webhook tokens: %w", err)
	}
	out, err := sqlrow.MapRows(rows, sqlrow.WebhookToken.WebhookToken)
	if out == nil {
		out = []domain.WebhookToken{}
	}
	return out, err
}

// DeleteWebhookToken deletes one of the user's tokens; another user's is not found.
func (s *Store) DeleteWebhookToken(ctx context.Context, userID, id uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
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
	var row sqlrow.WebhookToken
	err := s.write(ctx, func(tx *Tx) error {
		err := tx.GetContext(ctx, &row, `UPDATE webhook_tokens SET last_used_at = ? WHERE token_hash = ? AND provider = ?
			RETURNING `+sqlrow.WebhookTokenColumns, sqlrow.Millis(now), hash, string(provider))
		if err != nil {
			return sqlrow.NotFound(err, "Entity not found: webhook token")
		}
		return nil
	})
	if err != nil {
		return domain.WebhookToken{}, err
	}
	return row.WebhookToken()
}
