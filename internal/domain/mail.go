package domain

import (
	"time"

	"github.com/google/uuid"
)

// MailLinkKind is what a mailed link does when followed.
type MailLinkKind string

// The kinds of mailed link.
const (
	// MailPasswordReset sets a new password (and ends every session of the account).
	MailPasswordReset MailLinkKind = "password_reset"
	// MailEmailConfirmation makes an address the account's confirmed e-mail.
	MailEmailConfirmation MailLinkKind = "email"
)

// MailLinkTTL is how long a mailed link works: one hour from the request.
const MailLinkTTL = time.Hour

// MailLink is a requested link as stored: the worker's mail handler mints its token when it sends
// the mail, and only the token's hash is ever kept.
type MailLink struct {
	ID     uuid.UUID
	UserID uuid.UUID
	Kind   MailLinkKind
	// Email is where the mail goes: the account's address for a reset, the address to confirm
	// for a confirmation.
	Email string
	// Username is the account's, for the mail's greeting (read, never written).
	Username    string
	RequestedAt time.Time
	ExpiresAt   time.Time
	// Used is true once the link was followed; a used link is never sent again.
	Used bool
}
