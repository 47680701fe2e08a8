package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Registration's store side: invite links, approvals and the admins' count.

// CreateInvite stores an invite link's hash.
func (s *Store) CreateInvite(ctx context.Context, inv domain.Invite) error {
	var by *string
	if inv.CreatedBy != nil {
		id := inv.CreatedBy.String()
		by = &id
	}
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO invites (token_hash, created_by, admin, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?)`, inv.TokenHash, by, inv.Admin, sqlrow.Millis(inv.CreatedAt), sqlrow.Millis(inv.ExpiresAt))
		if err != nil {
			return fmt.Errorf("create invite: %w", err)
		}
		return nil
	})
}

// CountAdmins is the number of admin accounts.
func (s *Store) CountAdmins(ctx context.Context) (int, error) {
	var n int
	if err := s.read.GetContext(ctx, &n, `SELECT count(*) FROM users WHERE is_admin = ?`, true); err != nil {
		return 0, fmt.Errorf("count admins: %w", err)
	}
	return n, nil
}

// ApproveUser lets an account that waits for approval log in; approving an approved one changes
// nothing.
func (s *Store) ApproveUser(ctx context.Context, id uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET approved = ? WHERE id = ?`, true, id.String())
		if err != nil {
			return fmt.Errorf("approve user: %w", err)
		}
		return sqlrow.OneRow(res, "user")
	})
}

// errLastAdmin refuses to demote or delete the last admin: the instance would have nobody to run
// its admin routes.
var errLastAdmin = domain.Errorf(domain.KindConflict, "This is the only admin: make another user admin first")

// keepAnAdmin fails with errLastAdmin when id is an admin and no other admin exists. It locks
// users first, so two hosts demoting the last two admins at once take turns and the second sees
// the first's change.
func (s *Store) keepAnAdmin(ctx context.Context, tx *Tx, id uuid.UUID) error {
	if err := s.lock(ctx, tx, "users", `LOCK TABLE users IN EXCLUSIVE MODE`); err != nil {
		return err
	}
	var others, self int
	if err := tx.GetContext(ctx, &self, `SELECT count(*) FROM users WHERE id = ? AND is_admin = ?`, id.String(), true); err != nil {
		return err
	}
	if self == 0 {
		return nil
	}
	if err := tx.GetContext(ctx, &others, `SELECT count(*) FROM users WHERE id <> ? AND is_admin = ?`, id.String(), true); err != nil {
		return err
	}
	if others == 0 {
		return errLastAdmin
	}
	return nil
}

// reserveUsername keeps the user's current username from ever naming another account.
func reserveUsername(ctx context.Context, tx *Tx, id uuid.UUID, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO reserved_usernames (username, user_id, reserved_at)
		SELECT username, id, ? FROM users WHERE id = ? ON CONFLICT (username) DO NOTHING`, sqlrow.Millis(now), id.String())
	return err
}
