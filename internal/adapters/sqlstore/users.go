package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// CreateUser stores a new user with their actor key pair (made before the transaction: it takes
// tens of milliseconds). A user without a role (Role "") becomes the admin when they are the
// first user of the instance, else a standard user; a set role is kept. Where writers run
// concurrently (PostgreSQL's READ COMMITTED) two registrations could both count no user, so the
// transaction first locks users against other writers (reads go on): registrations on every host
// take their turn, which is cheap for something this rare, and the second one counts the first.
// A taken or reserved username, or a taken e-mail, is a KindInvalid error.
func (s *Store) CreateUser(ctx context.Context, u domain.User) (domain.User, error) {
	return s.createUser(ctx, u, "", time.Time{}, nil)
}

// CreateInvitedUser stores a new user as CreateUser does, spending the invite whose token hashes
// to inviteHash in the same transaction: an unknown, used or expired invite (at now) is a
// KindForbidden error and creates nothing, and an admin invite (the setup link) makes the user an
// admin.
func (s *Store) CreateInvitedUser(ctx context.Context, u domain.User, inviteHash string, now time.Time) (domain.User, error) {
	return s.createUser(ctx, u, inviteHash, now, nil)
}

// errBadInvite answers an invite link that is unknown, used or expired.
var errBadInvite = domain.Forbidden("This invite link is invalid, used or expired")

// createUser stores u (spending the invite of inviteHash when set); also, when set, runs in the
// same transaction once the user row is written (a single sign-on's identity link).
func (s *Store) createUser(ctx context.Context, u domain.User, inviteHash string, now time.Time, also func(*Tx) error) (domain.User, error) {
	priv, pub, err := sqlrow.NewActorKey()
	if err != nil {
		return domain.User{}, fmt.Errorf("create user: %w", err)
	}
	err = s.writeWithEvents(ctx, "create user", func(tx *Tx) ([]domain.Event, error) {
		return s.insertUser(ctx, tx, &u, inviteHash, now, priv, pub, also)
	})
	if err != nil {
		return domain.User{}, err
	}
	return u, nil
}

// insertUser is createUser's transaction: the invite spent, the row and actor key inserted, and,
// with mail (an address to confirm by a link), the events of a new account: UserRegistered (the
// admins' notice) and its link's row with EmailConfirmationRequested.
func (s *Store) insertUser(ctx context.Context, tx *Tx, u *domain.User, inviteHash string, now time.Time, priv, pub string,
	also func(*Tx) error) ([]domain.Event, error) {
	err := func() error {
		if err := s.lock(ctx, tx, "users", `LOCK TABLE users IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		if inviteHash != "" {
			var admin bool
			err := tx.GetContext(ctx, &admin, `UPDATE invites SET used_by = ?, used_at = ?
				WHERE token_hash = ? AND used_by IS NULL AND expires_at > ? RETURNING admin`,
				u.ID.String(), sqlrow.Millis(now), inviteHash, sqlrow.Millis(now))
			if errors.Is(err, sql.ErrNoRows) {
				return errBadInvite
			}
			if err != nil {
				return err
			}
			if admin {
				u.Role = domain.RoleAdmin
			}
		}
		if u.Role == "" {
			var n int
			if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users`); err != nil {
				return err
			}
			u.Role = domain.RoleStandard
			if n == 0 {
				u.Role = domain.RoleAdmin
			}
		}
		if err := usernameFree(ctx, tx, u.Username); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, username, email, password_hash, is_admin, approved, email_confirmed, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, u.ID.String(), u.Username, u.Email, u.PasswordHash,
			u.Role == domain.RoleAdmin, !u.Pending, !u.EmailUnconfirmed, sqlrow.FormatTime(u.CreatedAt))
		if err := s.userConflict(err); err != nil {
			return err
		}
		if err := insertActorKey(ctx, tx, u.ID, priv, pub, sqlrow.Millis(s.now())); err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	if !u.EmailUnconfirmed {
		// Without mail (the only case an address is not confirmed by a link) nothing would
		// consume a new account's events: none is written.
		return nil, nil
	}
	at := u.CreatedAt
	if at.IsZero() {
		at = s.now()
	}
	e, err := insertMailLink(ctx, tx, domain.MailLink{UserID: u.ID, Kind: domain.MailEmailConfirmation, Email: u.Email,
		RequestedAt: at, ExpiresAt: at.Add(domain.MailLinkTTL)})
	if err != nil {
		return nil, err
	}
	return []domain.Event{domain.UserRegistered{UserID: u.ID, Pending: u.Pending}, e}, nil
}

// userConflict translates a users write's unique violation into the caller's error.
func (s *Store) userConflict(err error) error {
	constraint, unique := s.d.UniqueViolation(err)
	switch {
	case unique && strings.Contains(constraint, "email"):
		return domain.Invalid("Email already registered")
	case unique:
		return errUsernameTaken
	}
	return err
}

// errUsernameTaken answers a username another account has or had.
var errUsernameTaken = domain.Invalid("Username already taken")

// usernameFree fails with errUsernameTaken when name is reserved: an old handle of a renamed
// account or the name of a deleted one.
func usernameFree(ctx context.Context, tx *Tx, name string) error {
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM reserved_usernames WHERE username = ?`, name); err != nil {
		return err
	}
	if n > 0 {
		return errUsernameTaken
	}
	return nil
}

// UserByEmail returns the user with that e-mail, ignoring case (the column is citext).
func (s *Store) UserByEmail(ctx context.Context, email string) (domain.User, error) {
	return s.userWhere(ctx, `email = ?`, strings.TrimSpace(email))
}

// UserByID returns the user.
func (s *Store) UserByID(ctx context.Context, id uuid.UUID) (domain.User, error) {
	return s.userWhere(ctx, `id = ?`, id.String())
}

// UserByUsername returns the user with that username, ignoring case (citext).
func (s *Store) UserByUsername(ctx context.Context, username string) (domain.User, error) {
	return s.userWhere(ctx, `username = ?`, username)
}

// UserByFormerUsername returns the account that gave up username by a rename at or after since,
// so that WebFinger still names it for a while; a deleted account's name finds nothing.
func (s *Store) UserByFormerUsername(ctx context.Context, username string, since time.Time) (domain.User, error) {
	return s.userWhere(ctx, `id = (SELECT user_id FROM reserved_usernames WHERE username = ? AND reserved_at >= ?)`,
		username, sqlrow.Millis(since))
}

func (s *Store) userWhere(ctx context.Context, where string, args ...any) (domain.User, error) {
	var row sqlrow.User
	if err := s.read.GetContext(ctx, &row, `SELECT `+sqlrow.UserColumns+` FROM users WHERE `+where, args...); err != nil {
		return domain.User{}, sqlrow.NotFound(err, "Entity not found: user")
	}
	return row.User(), nil
}

// CreateSession stores a login's first refresh session; its hash names the token family every
// rotation of it joins.
func (s *Store) CreateSession(ctx context.Context, userID uuid.UUID, tokenHash string, now, expires time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO refresh_sessions (token_hash, user_id, expires_at, created_at, family_id)
			VALUES (?, ?, ?, ?, ?)`, tokenHash, userID.String(), sqlrow.Millis(expires), sqlrow.Millis(now), tokenHash)
		if err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return nil
	})
}

// RotateSession spends the session oldHash and stores newHash in its family for the same user,
// in one transaction: a token works once. The old row is read FOR UPDATE, so two hosts rotating
// the same token take turns and the second sees it spent. The spent row stays (rotated_at set)
// until it expires, so presenting it again is seen as the reuse it is — the token leaked — and
// revokes the whole family, the live successor included (OAuth 2.0 Security BCP). An expired
// token is deleted. Both refusals are committed before they are returned.
func (s *Store) RotateSession(ctx context.Context, oldHash, newHash string, now, expires time.Time) (uuid.UUID, error) {
	var (
		user    uuid.UUID
		refusal error // sqlrow.ErrExpired or sqlrow.ErrReused: what the committed transaction answers
	)
	err := s.write(ctx, func(tx *Tx) error {
		refusal = nil
		var old struct {
			UserID    uuid.UUID       `db:"user_id"`
			ExpiresAt int64           `db:"expires_at"` // Unix ms
			Family    string          `db:"family"`
			RotatedAt sql.Null[int64] `db:"rotated_at"`
		}
		err := tx.GetContext(ctx, &old, `SELECT user_id, expires_at, coalesce(family_id, token_hash) AS family, rotated_at
			FROM refresh_sessions WHERE token_hash = ?`+s.forUpdate(), oldHash)
		if err != nil {
			return sqlrow.NotFound(err, "Invalid refresh token")
		}
		switch {
		case old.ExpiresAt <= sqlrow.Millis(now):
			refusal = sqlrow.ErrExpired
			_, err = tx.ExecContext(ctx, `DELETE FROM refresh_sessions WHERE token_hash = ?`, oldHash)
			return err
		case old.RotatedAt.Valid:
			refusal = sqlrow.ErrReused
			return deleteFamily(ctx, tx, old.Family)
		}
		user = old.UserID
		if _, err := tx.ExecContext(ctx, `UPDATE refresh_sessions SET rotated_at = ?, family_id = ? WHERE token_hash = ?`,
			sqlrow.Millis(now), old.Family, oldHash); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO refresh_sessions (token_hash, user_id, expires_at, created_at, family_id)
			VALUES (?, ?, ?, ?, ?)`, newHash, user.String(), sqlrow.Millis(expires), sqlrow.Millis(now), old.Family)
		return err
	})
	if err == nil {
		err = refusal
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("rotate session: %w", err)
	}
	return user, nil
}

// deleteFamily deletes every session of a token family.
func deleteFamily(ctx context.Context, tx *Tx, family string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM refresh_sessions WHERE family_id = ? OR token_hash = ?`, family, family)
	return err
}

// DeleteSession ends the login a refresh token belongs to: its whole family, the rotated
// tokens with the live one. An unknown token deletes nothing.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	return s.write(ctx, func(tx *Tx) error {
		var family string
		err := tx.GetContext(ctx, &family, `SELECT coalesce(family_id, token_hash) FROM refresh_sessions WHERE token_hash = ?`, tokenHash)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err == nil {
			err = deleteFamily(ctx, tx, family)
		}
		if err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
		return nil
	})
}

// PruneSessions deletes expired refresh sessions and returns how many.
func (s *Store) PruneSessions(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM refresh_sessions WHERE expires_at <= ?`, sqlrow.Millis(now))
		if err != nil {
			return fmt.Errorf("prune sessions: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// UserSummaries lists every local user with their review and follow counts, by username.
func (s *Store) UserSummaries(ctx context.Context) ([]user.Summary, error) {
	var rows []sqlrow.UserSummary
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.UserColumns+`,
		CAST(COALESCE((SELECT sum(n) FROM review_counts WHERE scope = 'user' AND key = users.id), 0) AS BIGINT) AS total_movies,
		(SELECT CAST(avg(rating) AS DOUBLE PRECISION) FROM reviews r WHERE r.user_id = users.id) AS avg_rating,
		(SELECT count(*) FROM follows WHERE follower_kind = 'local' AND follower_id = users.id AND status = 'accepted')
			AS following_count,
		(SELECT count(*) FROM follows WHERE target_kind = 'local' AND target_id = users.id AND status = 'accepted')
			AS followers_count
		FROM users ORDER BY username`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return sqlrow.CastRows(rows, sqlrow.UserSummary.Summary), nil
}
