package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Single sign-on's store side: the (issuer, subject) pairs of OpenID Connect providers that
// point at local accounts (user_identities).

// UserByIdentity returns the account an identity is linked to, or a KindNotFound error.
func (s *Store) UserByIdentity(ctx context.Context, id domain.Identity) (domain.User, error) {
	var row sqlrow.User
	err := s.read.GetContext(ctx, &row, `SELECT `+sqlrow.UserColumns+` FROM users
		WHERE id = (SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?)`, id.Issuer, id.Subject)
	if err != nil {
		return domain.User{}, sqlrow.NotFound(err, "No account is linked to this sign-in")
	}
	return row.User(), nil
}

// CreateUserWithIdentity stores a new user as CreateUser does and links the identity to them in
// the same transaction, so two sign-ins of one new person cannot make two accounts: the second
// finds the pair taken (KindConflict) and creates nothing.
func (s *Store) CreateUserWithIdentity(ctx context.Context, u domain.User, id domain.Identity) (domain.User, error) {
	return s.createUser(ctx, u, "", s.now(), func(tx *Tx) error {
		return s.insertIdentity(ctx, tx, u.ID, id)
	})
}

// LinkIdentity links an identity to an existing account; a pair already linked (to this account
// or another) is KindConflict, an unknown account KindNotFound.
func (s *Store) LinkIdentity(ctx context.Context, user uuid.UUID, id domain.Identity) error {
	return s.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users WHERE id = ?`, user.String()); err != nil {
			return fmt.Errorf("link identity: %w", err)
		}
		if n == 0 {
			return domain.NotFound("Entity not found: user")
		}
		return s.insertIdentity(ctx, tx, user, id)
	})
}

// errIdentityLinked answers a link of a pair that already names an account.
var errIdentityLinked = domain.Errorf(domain.KindConflict, "This sign-in is already linked to an account")

func (s *Store) insertIdentity(ctx context.Context, tx *Tx, user uuid.UUID, id domain.Identity) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO user_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)`,
		id.Issuer, id.Subject, user.String(), sqlrow.Millis(s.now()))
	if _, unique := s.d.UniqueViolation(err); unique {
		return errIdentityLinked
	}
	if err != nil {
		return fmt.Errorf("link identity: %w", err)
	}
	return nil
}

// Identities lists the identities linked to an account, oldest first.
func (s *Store) Identities(ctx context.Context, user uuid.UUID) ([]domain.Identity, error) {
	var rows []struct {
		Issuer  string `db:"issuer"`
		Subject string `db:"subject"`
	}
	if err := s.read.SelectContext(ctx, &rows, `SELECT issuer, subject FROM user_identities WHERE user_id = ?
		ORDER BY created_at, issuer, subject`, user.String()); err != nil {
		return nil, fmt.Errorf("identities: %w", err)
	}
	out := make([]domain.Identity, len(rows))
	for i, r := range rows {
		out[i] = domain.Identity{Issuer: r.Issuer, Subject: r.Subject}
	}
	return out, nil
}

// UsernameTaken reports whether an account has the username or ever had it (a renamed or
// deleted account's name is never reissued), ignoring case.
func (s *Store) UsernameTaken(ctx context.Context, username string) (bool, error) {
	var n int
	err := s.read.GetContext(ctx, &n, `SELECT (SELECT count(*) FROM users WHERE username = ?)
		+ (SELECT count(*) FROM reserved_usernames WHERE username = ?)`, username, username)
	if err != nil {
		return false, fmt.Errorf("username taken: %w", err)
	}
	return n > 0, nil
}
