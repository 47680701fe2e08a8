package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// SetEmail changes a user's e-mail address; a taken one is KindInvalid.
func (s *Store) SetEmail(ctx context.Context, id uuid.UUID, email string) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET email = ? WHERE id = ?`, email, id.String())
		if err := s.userConflict(err); err != nil {
			return fmt.Errorf("set email: %w", err)
		}
		return sqlrow.OneRow(res, "user")
	})
}

// RenameUser changes a user's username with UserUpdated (federation sends an Update of the
// actor, whose preferredUsername changes) in the same transaction, and reserves the old one for
// good: remote servers still know the old handle, which must never name another account. A name
// taken by another account or reserved by one is KindInvalid; the user may take back a name
// they had.
func (s *Store) RenameUser(ctx context.Context, id uuid.UUID, username string) error {
	return s.writeWithEvents(ctx, "rename user", func(tx *Tx) ([]domain.Event, error) {
		if err := s.lock(ctx, tx, "users", `LOCK TABLE users IN EXCLUSIVE MODE`); err != nil {
			return nil, err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM reserved_usernames WHERE username = ? AND user_id <> ?`,
			username, id.String()); err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, errUsernameTaken
		}
		if err := reserveUsername(ctx, tx, id, s.now()); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reserved_usernames WHERE username = ? AND user_id = ?`,
			username, id.String()); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET username = ? WHERE id = ?`, username, id.String())
		if err := s.userConflict(err); err != nil {
			return nil, err
		}
		if err := sqlrow.OneRow(res, "user"); err != nil {
			return nil, err
		}
		return []domain.Event{domain.UserUpdated{UserID: id}}, nil
	})
}

// LoginSessions lists a user's live log-ins (refresh token families with a live token), the
// latest first.
func (s *Store) LoginSessions(ctx context.Context, user uuid.UUID, now time.Time) ([]domain.LoginSession, error) {
	var rows []struct {
		Family    string `db:"family"`
		StartedAt int64  `db:"started_at"`
		LastUsed  int64  `db:"last_used"`
		ExpiresAt int64  `db:"expires_at"`
	}
	err := s.read.SelectContext(ctx, &rows, `SELECT coalesce(family_id, token_hash) AS family,
		min(created_at) AS started_at, max(created_at) AS last_used, max(expires_at) AS expires_at
		FROM refresh_sessions WHERE user_id = ?
		GROUP BY coalesce(family_id, token_hash)
		HAVING max(CASE WHEN rotated_at IS NULL AND expires_at > ? THEN 1 ELSE 0 END) = 1
		ORDER BY max(created_at) DESC, coalesce(family_id, token_hash)`, user.String(), sqlrow.Millis(now))
	if err != nil {
		return nil, fmt.Errorf("login sessions: %w", err)
	}
	out := make([]domain.LoginSession, len(rows))
	for i, r := range rows {
		out[i] = domain.LoginSession{ID: sessionID(r.Family), StartedAt: time.UnixMilli(r.StartedAt).UTC(),
			LastUsed: time.UnixMilli(r.LastUsed).UTC(), ExpiresAt: time.UnixMilli(r.ExpiresAt).UTC()}
	}
	return out, nil
}

// sessionID is the outward id of a token family: a hash of its id (itself the hash of the
// log-in's first token), so a listing never shows what a token hashes to.
func sessionID(family string) string {
	sum := sha256.Sum256([]byte("session:" + family))
	return hex.EncodeToString(sum[:16])
}

// EndLoginSession ends one of the user's log-ins by its LoginSession id; another user's or an
// unknown one is KindNotFound.
func (s *Store) EndLoginSession(ctx context.Context, user uuid.UUID, id string) error {
	return s.write(ctx, func(tx *Tx) error {
		var families []string
		if err := tx.SelectContext(ctx, &families, `SELECT DISTINCT coalesce(family_id, token_hash) FROM refresh_sessions
			WHERE user_id = ?`, user.String()); err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		for _, f := range families {
			if sessionID(f) == id {
				return deleteFamily(ctx, tx, f)
			}
		}
		return domain.NotFound("No such session")
	})
}
