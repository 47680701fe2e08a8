package user

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// AdminStore is the storage the operator's account commands read and write.
type AdminStore interface {
	ListUsers(ctx context.Context) ([]domain.User, error)
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	UserByUsername(ctx context.Context, username string) (domain.User, error)
	UserByEmail(ctx context.Context, email string) (domain.User, error)
	SetUserRole(ctx context.Context, id uuid.UUID, role domain.Role) error
	// SetPassword replaces the hash and ends the user's refresh sessions.
	SetPassword(ctx context.Context, id uuid.UUID, hash string) error
	// DeleteUser deletes the account with UserDeleted in the same transaction.
	DeleteUser(ctx context.Context, id uuid.UUID) error
}

// PasswordHasher hashes a new password (auth.DefaultHasher).
type PasswordHasher interface {
	Hash(password string) (string, error)
}

// Admin runs the operator's account commands (`server admin users …`): the instance's console
// for what no API route offers, such as a forgotten admin password.
type Admin struct {
	store  AdminStore
	hasher PasswordHasher
}

// NewAdmin builds the account commands.
func NewAdmin(store AdminStore, hasher PasswordHasher) *Admin {
	return &Admin{store: store, hasher: hasher}
}

// List returns every local account, oldest first.
func (a *Admin) List(ctx context.Context) ([]domain.User, error) { return a.store.ListUsers(ctx) }

// Find resolves a user named by id, e-mail address or username.
func (a *Admin) Find(ctx context.Context, ref string) (domain.User, error) {
	ref = strings.TrimSpace(ref)
	if id, err := uuid.Parse(ref); err == nil {
		return a.store.UserByID(ctx, id)
	}
	if strings.Contains(ref, "@") {
		return a.store.UserByEmail(ctx, ref)
	}
	return a.store.UserByUsername(ctx, ref)
}

// ResetPassword sets a new password for the user (checked like a registration's) and ends their
// sessions.
func (a *Admin) ResetPassword(ctx context.Context, ref, password string) (domain.User, error) {
	if err := domain.ValidatePassword(password); err != nil {
		return domain.User{}, err
	}
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	hash, err := a.hasher.Hash(password)
	if err != nil {
		return domain.User{}, err
	}
	return u, a.store.SetPassword(ctx, u.ID, hash)
}

// SetRole makes the user an admin or a standard user. The last admin cannot be demoted: the
// instance would have nobody to run its admin routes.
func (a *Admin) SetRole(ctx context.Context, ref string, role domain.Role) (domain.User, error) {
	if role != domain.RoleAdmin && role != domain.RoleStandard {
		return domain.User{}, domain.Invalid("role must be admin or standard")
	}
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	if u.Role == domain.RoleAdmin && role != domain.RoleAdmin {
		if err := a.notLastAdmin(ctx, u); err != nil {
			return domain.User{}, err
		}
	}
	u.Role = role
	return u, a.store.SetUserRole(ctx, u.ID, role)
}

// Delete deletes the user's account and everything theirs; UserDeleted, committed with it, makes
// the worker send the actor's Delete to their remote followers. The last admin is refused while
// other users remain.
func (a *Admin) Delete(ctx context.Context, ref string) (domain.User, error) {
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	if u.Role == domain.RoleAdmin {
		if err := a.notLastAdmin(ctx, u); err != nil {
			return domain.User{}, err
		}
	}
	return u, a.store.DeleteUser(ctx, u.ID)
}

// notLastAdmin fails when u is the only admin and another user exists.
func (a *Admin) notLastAdmin(ctx context.Context, u domain.User) error {
	users, err := a.store.ListUsers(ctx)
	if err != nil {
		return err
	}
	admins := 0
	for _, x := range users {
		if x.Role == domain.RoleAdmin {
			admins++
		}
	}
	if admins <= 1 && len(users) > 1 {
		return domain.Errorf(domain.KindConflict, "%s is the only admin: make another user admin first", u.Username)
	}
	return nil
}
