package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// The operator's account commands (`server admin users …`): list, role, password, delete.

// ListUsers returns every local account, oldest first.
func (s *Store) ListUsers(ctx context.Context) ([]domain.User, error) {
	var rows []sqlrow.User
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.UserColumns+` FROM users ORDER BY created_at, id`); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	users := make([]domain.User, len(rows))
	for i, r := range rows {
		users[i] = r.User()
	}
	return users, nil
}

// SetUserRole makes a user an admin or a standard user. The last admin cannot be demoted
// (KindConflict).
func (s *Store) SetUserRole(ctx context.Context, id uuid.UUID, role domain.Role) error {
	return s.write(ctx, func(tx *Tx) error {
		if role != domain.RoleAdmin {
			if err := s.keepAnAdmin(ctx, tx, id); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET is_admin = ? WHERE id = ?`, role == domain.RoleAdmin, id.String())
		if err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		return sqlrow.OneRow(res, "user")
	})
}

// SetPassword replaces a user's password hash and ends every refresh session of theirs in the
// same transaction, so a reset locks out whoever held the old password once their access token
// expires.
func (s *Store) SetPassword(ctx context.Context, id uuid.UUID, hash string) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, id.String())
		if err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if err := sqlrow.OneRow(res, "user"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM refresh_sessions WHERE user_id = ?`, id.String()); err != nil {
			return fmt.Errorf("end sessions: %w", err)
		}
		return nil
	})
}

// DeleteUser deletes a local account with UserDeleted in the same transaction. The users row
// takes its reviews, watchlist, sessions, settings, blocks and wrap-ups with it (foreign keys and
// the reviews trigger), and the user's own follows and local relations go here. What the
// actor's Delete still needs stays: the accepted remote followers (the fan-out's inboxes) and
// the actor key (the deliveries are signed with it). The username is reserved for good: remote
// servers still know the handle, which must never name another account. The last admin cannot
// be deleted (KindConflict).
func (s *Store) DeleteUser(ctx context.Context, id uuid.UUID) error {
	return s.writeWithEvents(ctx, "delete user", func(tx *Tx) ([]domain.Event, error) {
		if err := s.keepAnAdmin(ctx, tx, id); err != nil {
			return nil, err
		}
		if err := reserveUsername(ctx, tx, id, s.now()); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id.String())
		if err != nil {
			return nil, err
		}
		if err := sqlrow.OneRow(res, "user"); err != nil {
			return nil, err
		}
		uid := id.String()
		if _, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE (follower_kind = 'local' AND follower_id = ?)
			OR (target_kind = 'local' AND target_id = ? AND (follower_kind = 'local' OR status <> 'accepted'))`, uid, uid); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM blocks WHERE target_kind = 'local' AND target_id = ?`, uid); err != nil {
			return nil, err
		}
		return []domain.Event{domain.UserDeleted{UserID: id}}, nil
	})
}
