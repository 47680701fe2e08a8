package sqlrow

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// actorKeyBits is the size of the actors' RSA keys, what Mastodon and its peers use.
const actorKeyBits = 2048

// ActorKey is an actor's key pair as stored.
type ActorKey struct {
	PrivatePEM string `db:"private_key_pem"`
	PublicPEM  string `db:"public_key_pem"`
}

// NewActorKey makes an RSA key pair as PEM text: PKCS#8 private, PKIX public (the form actor
// documents publish).
func NewActorKey() (privatePEM, publicPEM string, err error) {
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
