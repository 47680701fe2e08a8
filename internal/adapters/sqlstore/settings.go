package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Settings returns a user's federation settings; a user who never saved any has the defaults.
func (s *Store) Settings(ctx context.Context, user uuid.UUID) (domain.FederationSettings, error) {
	var row sqlrow.Settings
	err := s.read.GetContext(ctx, &row, `SELECT federate_reviews, federate_watchlist, federate_goals FROM user_settings
		WHERE user_id = ?`, user.String())
	if errors.Is(err, sql.ErrNoRows) {
		return domain.DefaultFederationSettings, nil
	}
	if err != nil {
		return domain.FederationSettings{}, fmt.Errorf("read settings: %w", err)
	}
	return domain.FederationSettings(row), nil
}

// SaveSettings replaces a user's federation settings. No event: nothing outside the database
// reacts to them (federation reads them when it broadcasts).
func (s *Store) SaveSettings(ctx context.Context, user uuid.UUID, fs domain.FederationSettings) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_settings (user_id, federate_reviews, federate_watchlist, federate_goals)
			VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET federate_reviews = excluded.federate_reviews,
			federate_watchlist = excluded.federate_watchlist, federate_goals = excluded.federate_goals`,
			user.String(), fs.Reviews, fs.Watchlist, fs.Goals)
		if err != nil {
			return fmt.Errorf("save settings: %w", err)
		}
		return nil
	})
}

// WrapUpsPublic reports whether a user made their wrap-ups public (off when they never chose).
func (s *Store) WrapUpsPublic(ctx context.Context, user uuid.UUID) (bool, error) {
	var public bool
	err := s.read.GetContext(ctx, &public, `SELECT public_wrapups FROM user_settings WHERE user_id = ?`, user.String())
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read wrap-up visibility: %w", err)
	}
	return public, nil
}

// SetWrapUpsPublic saves whether a user's wrap-ups are public, keeping their federation
// settings. No event: only the pages read it.
func (s *Store) SetWrapUpsPublic(ctx context.Context, user uuid.UUID, public bool) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_settings (user_id, public_wrapups) VALUES (?, ?)
			ON CONFLICT (user_id) DO UPDATE SET public_wrapups = excluded.public_wrapups`, user.String(), public)
		if err != nil {
			return fmt.Errorf("save wrap-up visibility: %w", err)
		}
		return nil
	})
}
