package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Two factors: a user's TOTP secret with the last time step accepted, and their single-use
// recovery codes (hashes only).

// errTwoFactorOn refuses a new enrolment of a user whose two factors are on.
var errTwoFactorOn = domain.Errorf(domain.KindConflict, "Two-factor authentication is already on: turn it off first")

// BeginTwoFactor stores a new, not yet enabled TOTP secret for the user, replacing an earlier
// enrolment that was never confirmed; an enabled one is KindConflict.
func (s *Store) BeginTwoFactor(ctx context.Context, user uuid.UUID, secret string, now time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO two_factor (user_id, secret, created_at) VALUES (?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at, last_step = 0
			WHERE two_factor.enabled_at IS NULL`, user.String(), secret, sqlrow.Millis(now))
		if err != nil {
			return fmt.Errorf("begin two factors: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, errTwoFactorOn)
		}
		return nil
	})
}

// cmpErr is err, or fallback when err is nil.
func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// TwoFactor returns the user's enrolment with the number of unused recovery codes; a user who
// never began one is KindNotFound.
func (s *Store) TwoFactor(ctx context.Context, user uuid.UUID) (domain.TwoFactor, error) {
	var row struct {
		Secret    string          `db:"secret"`
		EnabledAt sql.Null[int64] `db:"enabled_at"`
		LastStep  int64           `db:"last_step"`
		Left      int             `db:"left"`
	}
	err := s.read.GetContext(ctx, &row, `SELECT secret, enabled_at, last_step,
		(SELECT count(*) FROM recovery_codes r WHERE r.user_id = two_factor.user_id AND r.used_at IS NULL) AS "left"
		FROM two_factor WHERE user_id = ?`, user.String())
	if err != nil {
		return domain.TwoFactor{}, sqlrow.NotFound(err, "Two-factor authentication is off")
	}
	return domain.TwoFactor{Secret: row.Secret, Enabled: row.EnabledAt.Valid, LastStep: row.LastStep, RecoveryLeft: row.Left}, nil
}

// EnableTwoFactor turns on the enrolment begun with BeginTwoFactor, whose first code was of time
// step step, and stores the recovery codes' hashes, in one transaction. Without an enrolment it
// is KindNotFound; an enabled one is KindConflict.
func (s *Store) EnableTwoFactor(ctx context.Context, user uuid.UUID, step int64, codeHashes []string, now time.Time) error {
	return s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE two_factor SET enabled_at = ?, last_step = ? WHERE user_id = ? AND enabled_at IS NULL`,
			sqlrow.Millis(now), step, user.String())
		if err != nil {
			return fmt.Errorf("enable two factors: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			var enabled int
			if err := tx.GetContext(ctx, &enabled, `SELECT count(*) FROM two_factor WHERE user_id = ?`, user.String()); err != nil {
				return err
			}
			if enabled > 0 {
				return errTwoFactorOn
			}
			return domain.NotFound("Set up two-factor authentication first")
		}
		return replaceRecoveryCodes(ctx, tx, user, codeHashes)
	})
}

func replaceRecoveryCodes(ctx context.Context, tx *Tx, user uuid.UUID, hashes []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, user.String()); err != nil {
		return fmt.Errorf("recovery codes: %w", err)
	}
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)`, user.String(), h); err != nil {
			return fmt.Errorf("recovery codes: %w", err)
		}
	}
	return nil
}

// ReplaceRecoveryCodes replaces an enabled user's recovery codes; without two factors on it is
// KindNotFound.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, user uuid.UUID, codeHashes []string) error {
	return s.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM two_factor WHERE user_id = ? AND enabled_at IS NOT NULL`, user.String()); err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("Two-factor authentication is off")
		}
		return replaceRecoveryCodes(ctx, tx, user, codeHashes)
	})
}

// UseTwoFactorStep spends time step step of an enabled user's TOTP: it reports false, changing
// nothing, when a code of that step or a later one was accepted already (a replayed code). The
// check and the update are one statement, so two requests with the same code cannot both pass.
func (s *Store) UseTwoFactorStep(ctx context.Context, user uuid.UUID, step int64) (bool, error) {
	var ok bool
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE two_factor SET last_step = ?
			WHERE user_id = ? AND enabled_at IS NOT NULL AND last_step < ?`, step, user.String(), step)
		if err != nil {
			return fmt.Errorf("use two-factor code: %w", err)
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	return ok, err
}

// UseRecoveryCode spends one of the user's recovery codes by its hash: false when there is no
// such unused code.
func (s *Store) UseRecoveryCode(ctx context.Context, user uuid.UUID, hash string, now time.Time) (bool, error) {
	var ok bool
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL`,
			sqlrow.Millis(now), user.String(), hash)
		if err != nil {
			return fmt.Errorf("use recovery code: %w", err)
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	return ok, err
}

// DisableTwoFactor deletes the user's TOTP secret and recovery codes; a user without them is not
// an error.
func (s *Store) DisableTwoFactor(ctx context.Context, user uuid.UUID) error {
	return s.write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, user.String()); err != nil {
			return fmt.Errorf("disable two factors: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM two_factor WHERE user_id = ?`, user.String()); err != nil {
			return fmt.Errorf("disable two factors: %w", err)
		}
		return nil
	})
}
