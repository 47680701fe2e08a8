package domain

import "github.com/google/uuid"

// PasswordResetRequested means someone asked for a password reset link for an account (the
// forgot-password form); the reset use case emits it with the link's row, and the mail handler
// mints the link's token and mails it. The payload carries no token: the handler mints it, so
// the outbox (and a NATS stream relaying it) never holds a working link.
type PasswordResetRequested struct {
	LinkID uuid.UUID `json:"link_id"`
	UserID uuid.UUID `json:"user_id"`
}

// EventType returns "PasswordResetRequested".
func (PasswordResetRequested) EventType() string { return "PasswordResetRequested" }

// Validate checks the ids.
func (e PasswordResetRequested) Validate() error {
	return firstErr(needID("link_id", e.LinkID), needID("user_id", e.UserID))
}

// EmailConfirmationRequested means an address waits for its confirmation link (an e-mail change,
// or a registration, with mail configured); the mail handler mints the link's token and mails it
// to that address. Like PasswordResetRequested it carries no token.
type EmailConfirmationRequested struct {
	LinkID uuid.UUID `json:"link_id"`
	UserID uuid.UUID `json:"user_id"`
}

// EventType returns "EmailConfirmationRequested".
func (EmailConfirmationRequested) EventType() string { return "EmailConfirmationRequested" }

// Validate checks the ids.
func (e EmailConfirmationRequested) Validate() error {
	return firstErr(needID("link_id", e.LinkID), needID("user_id", e.UserID))
}

// UserRegistered means an account registered while the instance sends mail (without mail
// nothing would consume it, and it is not written); with NOTIFY_ADMINS_ON_REGISTRATION the mail
// handler tells the admins, above all of an account that waits for their approval (Pending).
type UserRegistered struct {
	UserID  uuid.UUID `json:"user_id"`
	Pending bool      `json:"pending"`
}

// EventType returns "UserRegistered".
func (UserRegistered) EventType() string { return "UserRegistered" }

// Validate checks the user id.
func (e UserRegistered) Validate() error { return needID("user_id", e.UserID) }
