package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"moviesdiary/internal/adapters/sqlrow"

	"github.com/google/uuid"
)

// insertActorKey stores a key pair for owner unless it has one.
func insertActorKey(ctx context.Context, tx *Tx, owner uuid.UUID, priv, pub string, nowMs int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO actor_keys (owner_id, private_key_pem, public_key_pem, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (owner_id) DO NOTHING`, owner.String(), priv, pub, nowMs)
	if err != nil {
		return fmt.Errorf("store actor key: %w", err)
	}
	return nil
}

// ActorKey returns a local actor's key pair (PEM), making and storing one if it has none yet: a
// user from before federation, or the instance actor. Two callers racing store one key and both
// return it.
func (s *Store) ActorKey(ctx context.Context, owner uuid.UUID) (privatePEM, publicPEM string, err error) {
	var key sqlrow.ActorKey
	err = s.read.GetContext(ctx, &key, `SELECT private_key_pem, public_key_pem FROM actor_keys WHERE owner_id = ?`,
		owner.String())
	if err == nil {
		return key.PrivatePEM, key.PublicPEM, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("read actor key: %w", err)
	}
	priv, pub, err := sqlrow.NewActorKey()
	if err != nil {
		return "", "", err
	}
	err = s.write(ctx, func(tx *Tx) error {
		if err := insertActorKey(ctx, tx, owner, priv, pub, sqlrow.Millis(s.now())); err != nil {
			return err
		}
		return tx.GetContext(ctx, &key, `SELECT private_key_pem, public_key_pem FROM actor_keys WHERE owner_id = ?`,
			owner.String())
	})
	if err != nil {
		return "", "", fmt.Errorf("actor key: %w", err)
	}
	return key.PrivatePEM, key.PublicPEM, nil
}
