package postgres

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"

	"moviesdiary/internal/adapters/sqlrow"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// actorKeyBits is the size of the actors' RSA keys, what Mastodon and its peers use.
const actorKeyBits = 2048

// newActorKey makes an RSA key pair as PEM text: PKCS#8 private, PKIX public (the form actor
// documents publish).
func newActorKey() (privatePEM, publicPEM string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, actorKeyBits)
	if err != nil {
		return "", "", fmt.Errorf("generate actor key: %w", err)
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", fmt.Errorf("encode actor key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", fmt.Errorf("encode actor key: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})), nil
}

// insertActorKey stores a key pair for owner unless it has one.
func insertActorKey(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, priv, pub string, nowMs int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO actor_keys (owner_id, private_key_pem, public_key_pem, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (owner_id) DO NOTHING`, owner.String(), priv, pub, nowMs)
	if err != nil {
		return fmt.Errorf("store actor key: %w", err)
	}
	return nil
}

// actorKeyRow is an actor's key pair as stored.
type actorKeyRow struct {
	PrivatePEM string `db:"private_key_pem"`
	PublicPEM  string `db:"public_key_pem"`
}

// ActorKey returns a local actor's key pair (PEM), making and storing one if it has none yet: a
// user from before federation, or the instance actor. Two callers racing store one key and both
// return it.
func (s *Store) ActorKey(ctx context.Context, owner uuid.UUID) (privatePEM, publicPEM string, err error) {
	const query = `SELECT private_key_pem, public_key_pem FROM actor_keys WHERE owner_id = $1`
	var key actorKeyRow
	err = s.db.GetContext(ctx, &key, query, owner.String())
	if err == nil {
		return key.PrivatePEM, key.PublicPEM, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("read actor key: %w", err)
	}
	priv, pub, err := newActorKey()
	if err != nil {
		return "", "", err
	}
	err = s.write(ctx, func(tx *sqlx.Tx) error {
		if err := insertActorKey(ctx, tx, owner, priv, pub, sqlrow.Millis(s.now())); err != nil {
			return err
		}
		return tx.GetContext(ctx, &key, query, owner.String())
	})
	if err != nil {
		return "", "", fmt.Errorf("actor key: %w", err)
	}
	return key.PrivatePEM, key.PublicPEM, nil
}
