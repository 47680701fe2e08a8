package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Personal access tokens: only their hashes are stored; revoking deletes the row, and deleting
// the user deletes theirs (the foreign key).

// accessTokenRow is a row of access_tokens.
type accessTokenRow struct {
	ID         uuid.UUID       `db:"id"`
	UserID     uuid.UUID       `db:"user_id"`
	Name       string          `db:"name"`
	Scope      string          `db:"scope"`
	Hash       string          `db:"token_hash"`
	CreatedAt  int64           `db:"created_at"`
	ExpiresAt  sql.Null[int64] `db:"expires_at"`
	LastUsedAt sql.Null[int64] `db:"last_used_at"`
}

const accessTokenColumns = `id, user_id, name, scope, token_hash, created_at, expires_at, last_used_at`

func (r accessTokenRow) token() domain.AccessToken {
	ms := func(v sql.Null[int64]) *time.Time {
		if !v.Valid {
			return nil
		}
		t := time.UnixMilli(v.V).UTC()
		return &t
	}
	return domain.AccessToken{ID: r.ID, UserID: r.UserID, Name: r.Name, Scope: domain.TokenScope(r.Scope), Hash: r.Hash,
		CreatedAt: time.UnixMilli(r.CreatedAt).UTC(), ExpiresAt: ms(r.ExpiresAt), LastUsedAt: ms(r.LastUsedAt)}
}

// CreateAccessToken stores a new personal access token.
func (s *Store) CreateAccessToken(ctx context.Context, t domain.AccessToken) error {
	var exp sql.Null[int64]
	if t.ExpiresAt != nil {
		exp = sql.Null[int64]{V: sqlrow.Millis(*t.ExpiresAt), Valid: true}
	}
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO access_tokens (id, user_id, name, scope, token_hash, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.ID.String(), t.UserID.String(), t.Name, string(t.Scope), t.Hash,
			sqlrow.Millis(t.CreatedAt), exp)
		if err != nil {
			return fmt.Errorf("create access token: %w", err)
		}
		return nil
	})
}

// AccessTokens lists a user's tokens, the newest first; expired ones too (their owner sees them
// expired and revokes them).
func (s *Store) AccessTokens(ctx context.Context, user uuid.UUID) ([]domain.AccessToken, error) {
	var rows []accessTokenRow
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+accessTokenColumns+` FROM access_tokens WHERE user_id = ?
		ORDER BY created_at DESC, id`, user.String()); err != nil {
		return nil, fmt.Errorf("access tokens: %w", err)
	}
	return sqlrow.CastRows(rows, accessTokenRow.token), nil
}

// AccessTokenByHash returns the token whose secret hashes to hash, or a KindNotFound error.
func (s *Store) AccessTokenByHash(ctx context.Context, hash string) (domain.AccessToken, error) {
	var row accessTokenRow
	if err := s.read.GetContext(ctx, &row, `SELECT `+accessTokenColumns+` FROM access_tokens WHERE token_hash = ?`, hash); err != nil {
		return domain.AccessToken{}, sqlrow.NotFound(err, "No such access token")
	}
	return row.token(), nil
}

// TouchAccessToken records a use of the token at now unless one at or after since is recorded
// already: the caller passes now minus a minute, so a busy script writes once a minute, not once
// a request.
func (s *Store) TouchAccessToken(ctx context.Context, id uuid.UUID, now, since time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE access_tokens SET last_used_at = ?
			WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, sqlrow.Millis(now), id.String(), sqlrow.Millis(since))
		if err != nil {
			return fmt.Errorf("touch access token: %w", err)
		}
		return nil
	})
}

// RevokeAccessToken deletes one of the user's tokens; another user's or an unknown one is
// KindNotFound.
func (s *Store) RevokeAccessToken(ctx context.Context, user, id uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM access_tokens WHERE id = ? AND user_id = ?`, id.String(), user.String())
		if err != nil {
			return fmt.Errorf("revoke access token: %w", err)
		}
		return sqlrow.OneRow(res, "access token")
	})
}
