package user

import (
	"context"
	"strings"
	"time"

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
	// CreateUser stores a new account with its role.
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
	// ApproveUser lets a pending account log in.
	ApproveUser(ctx context.Context, id uuid.UUID) error
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

// SetRole makes the user an admin or a standard user. The last admin cannot be demoted (the
// store refuses it atomically, KindConflict): the instance would have nobody to run its admin
// routes.
func (a *Admin) SetRole(ctx context.Context, ref string, role domain.Role) (domain.User, error) {
	if role != domain.RoleAdmin && role != domain.RoleStandard {
		return domain.User{}, domain.Invalid("role must be admin or standard")
	}
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	u.Role = role
	return u, a.store.SetUserRole(ctx, u.ID, role)
}

// Delete deletes the user's account and everything theirs; UserDeleted, committed with it, makes
// the worker send the actor's Delete to their remote followers. The last admin is refused
// (KindConflict).
func (a *Admin) Delete(ctx context.Context, ref string) (domain.User, error) {
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	return u, a.store.DeleteUser(ctx, u.ID)
}

// Create makes an account (approved) with the role given: how an operator makes the first admin
// without the setup link.
func (a *Admin) Create(ctx context.Context, email, username, password string, role domain.Role) (domain.User, error) {
	email, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, err
	}
	if username, err = domain.NormalizeUsername(username); err != nil {
		return domain.User{}, err
	}
	if err := domain.ValidatePassword(password); err != nil {
		return domain.User{}, err
	}
	hash, err := a.hasher.Hash(password)
	if err != nil {
		return domain.User{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.User{}, err
	}
	return a.store.CreateUser(ctx, domain.User{ID: id, Username: username, Email: email, PasswordHash: hash,
		Role: role, CreatedAt: time.Now().UTC()})
}

// Approve lets an account that waits for approval log in.
func (a *Admin) Approve(ctx context.Context, ref string) (domain.User, error) {
	u, err := a.Find(ctx, ref)
	if err != nil {
		return domain.User{}, err
	}
	u.Pending = false
	return u, a.store.ApproveUser(ctx, u.ID)
}
