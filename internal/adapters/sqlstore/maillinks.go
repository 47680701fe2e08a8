package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Mailed links (password reset, e-mail confirmation): the request writes the link's row and the
// event that has the worker mail it, in one transaction; the worker's handler mints the token
// and stores its hash (SetMailLinkToken); following the link spends it (ResetPassword,
// ConfirmEmail).

// insertMailLink stores a requested link (no token yet) and returns the event that mails it.
func insertMailLink(ctx context.Context, tx *Tx, l domain.MailLink) (domain.Event, error) {
	id := l.ID
	if id == uuid.Nil {
		var err error
		if id, err = uuid.NewV7(); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mail_tokens (id, user_id, kind, email, requested_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`, id.String(), l.UserID.String(), string(l.Kind), l.Email,
		sqlrow.Millis(l.RequestedAt), sqlrow.Millis(l.ExpiresAt)); err != nil {
		return nil, fmt.Errorf("insert mail link: %w", err)
	}
	if l.Kind == domain.MailPasswordReset {
		return domain.PasswordResetRequested{LinkID: id, UserID: l.UserID}, nil
	}
	return domain.EmailConfirmationRequested{LinkID: id, UserID: l.UserID}, nil
}

// RequestMailLink stores a requested link with the event that has the worker mint and mail it,
// and returns its id; unless the user already asked for limit links of that kind since since:
// then it stores nothing and returns uuid.Nil (the throttle of the forgot-password form, shared
// by every server host since it counts rows).
func (s *Store) RequestMailLink(ctx context.Context, l domain.MailLink, limit int, since time.Time) (uuid.UUID, error) {
	var stored uuid.UUID
	err := s.writeWithEvents(ctx, "request mail link", func(tx *Tx) ([]domain.Event, error) {
		stored = uuid.Nil
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		l.ID = id
		if err := s.lock(ctx, tx, "mail links", `SELECT id FROM users WHERE id = ? FOR UPDATE`, l.UserID.String()); err != nil {
			return nil, err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM mail_tokens WHERE user_id = ? AND kind = ? AND requested_at > ?`,
			l.UserID.String(), string(l.Kind), sqlrow.Millis(since)); err != nil {
			return nil, err
		}
		if n >= limit {
			return nil, nil
		}
		e, err := insertMailLink(ctx, tx, l)
		if err != nil {
			return nil, err
		}
		stored = id
		return []domain.Event{e}, nil
	})
	return stored, err
}

// MailLink returns a requested link with its account's username, or KindNotFound (the account
// was deleted, taking its links with it).
func (s *Store) MailLink(ctx context.Context, id uuid.UUID) (domain.MailLink, error) {
	var row struct {
		ID          uuid.UUID       `db:"id"`
		UserID      uuid.UUID       `db:"user_id"`
		Kind        string          `db:"kind"`
		Email       string          `db:"email"`
		Username    string          `db:"username"`
		RequestedAt int64           `db:"requested_at"`
		ExpiresAt   int64           `db:"expires_at"`
		UsedAt      sql.Null[int64] `db:"used_at"`
	}
	err := s.read.GetContext(ctx, &row, `SELECT m.id, m.user_id, m.kind, m.email, u.username, m.requested_at, m.expires_at, m.used_at
		FROM mail_tokens m JOIN users u ON u.id = m.user_id WHERE m.id = ?`, id.String())
	if err != nil {
		return domain.MailLink{}, sqlrow.NotFound(err, "No such mail link")
	}
	return domain.MailLink{ID: row.ID, UserID: row.UserID, Kind: domain.MailLinkKind(row.Kind), Email: row.Email,
		Username: row.Username, RequestedAt: time.UnixMilli(row.RequestedAt).UTC(), ExpiresAt: time.UnixMilli(row.ExpiresAt).UTC(),
		Used: row.UsedAt.Valid}, nil
}

// SetMailLinkToken stores the hash of the token the mail handler minted for a link, replacing
// the hash of an earlier attempt (whose mail may never have left): the latest mail's link is
// the one that works. False when the link is gone or already used.
func (s *Store) SetMailLinkToken(ctx context.Context, id uuid.UUID, tokenHash string) (bool, error) {
	var ok bool
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE mail_tokens SET token_hash = ? WHERE id = ? AND used_at IS NULL`, tokenHash, id.String())
		if err != nil {
			return fmt.Errorf("set mail link token: %w", err)
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	return ok, err
}

// errBadMailLink answers a link that is unknown, used or expired; it changes nothing.
var errBadMailLink = domain.Forbidden("This link is invalid, used or expired: ask for a new one")

// spendMailLink marks the live link of kind whose token hashes to tokenHash used and returns it;
// errBadMailLink when there is none at now.
func spendMailLink(ctx context.Context, tx *Tx, kind domain.MailLinkKind, tokenHash string, now time.Time) (uuid.UUID, string, error) {
	var row struct {
		UserID uuid.UUID `db:"user_id"`
		Email  string    `db:"email"`
	}
	err := tx.GetContext(ctx, &row, `UPDATE mail_tokens SET used_at = ?
		WHERE token_hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id, email`,
		sqlrow.Millis(now), tokenHash, string(kind), sqlrow.Millis(now))
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, "", errBadMailLink
	}
	if err != nil {
		return uuid.Nil, "", err
	}
	return row.UserID, row.Email, nil
}

// ResetPassword spends the password reset link whose token hashes to tokenHash and sets the
// account's password hash, in one transaction: every session of the account ends, and its other
// reset links stop working. An unknown, used or expired link is KindForbidden and changes
// nothing. It returns the account.
func (s *Store) ResetPassword(ctx context.Context, tokenHash, passwordHash string, now time.Time) (uuid.UUID, error) {
	var user uuid.UUID
	err := s.write(ctx, func(tx *Tx) error {
		id, _, err := spendMailLink(ctx, tx, domain.MailPasswordReset, tokenHash, now)
		if err != nil {
			return err
		}
		user = id
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, passwordHash, id.String()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mail_tokens SET used_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL`,
			sqlrow.Millis(now), id.String(), string(domain.MailPasswordReset)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM refresh_sessions WHERE user_id = ?`, id.String())
		return err
	})
	if err != nil {
		return uuid.Nil, fmt.Errorf("reset password: %w", err)
	}
	return user, nil
}

// ConfirmEmail spends the confirmation link whose token hashes to tokenHash and makes its
// address the account's confirmed e-mail. An unknown, used or expired link is KindForbidden; an
// address another account took meanwhile is KindInvalid and leaves the link unspent.
func (s *Store) ConfirmEmail(ctx context.Context, tokenHash string, now time.Time) error {
	err := s.write(ctx, func(tx *Tx) error {
		id, email, err := spendMailLink(ctx, tx, domain.MailEmailConfirmation, tokenHash, now)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET email = ?, email_confirmed = ? WHERE id = ?`, email, true, id.String())
		if err := s.userConflict(err); err != nil {
			return err
		}
		return sqlrow.OneRow(res, "user")
	})
	if err != nil {
		return fmt.Errorf("confirm email: %w", err)
	}
	return nil
}

// AdminEmails are the addresses of every admin account.
func (s *Store) AdminEmails(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.read.SelectContext(ctx, &out, `SELECT email FROM users WHERE is_admin = ? ORDER BY email`, true); err != nil {
		return nil, fmt.Errorf("admin emails: %w", err)
	}
	return out, nil
}
