// Package seal encrypts the secrets shipd must keep readable (webhook signing
// secrets, which the delivery worker needs in clear to sign) and the stored
// responses of idempotent requests, which may carry such secrets. A database
// dump without the key reveals none of them.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a [Cipher] key: AES-256.
const KeySize = 32

// ciphertextV1 marks AES-256-GCM with a random 96-bit nonce prepended to the
// sealed data. The version prefix lets a later key or algorithm rotation tell
// old values from new ones without guessing.
const ciphertextV1 = "v1:"

// ErrInvalidCiphertext is returned by [Cipher.Decrypt] for values that are
// malformed, were encrypted under another key, or have been altered.
var ErrInvalidCiphertext = errors.New("seal: invalid or tampered ciphertext")

// Cipher encrypts values for storage. Signing secrets are kept encrypted
// rather than hashed because the delivery worker needs the plaintext to sign;
// encryption keeps a leaked database dump from letting anyone forge
// deliveries, as long as the key is stored elsewhere. A Cipher is safe for
// concurrent use.
type Cipher struct {
	aead cipher.AEAD
}

// NewCipher returns a Cipher using key, which must be [KeySize] bytes.
func NewCipher(key []byte) (*Cipher, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: encryption key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	// NewGCMWithRandomNonce draws a fresh nonce for every Seal and prepends it,
	// so a nonce can never be reused by a caller mistake.
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Cipher{aead: aead}, nil
}

// Encrypt returns "v1:" followed by the standard base64 of nonce|ciphertext|tag.
// Encrypting the same plaintext twice gives different results.
func (c *Cipher) Encrypt(plaintext string) (string, error) {
	sealed := c.aead.Seal(nil, nil, []byte(plaintext), nil)
	return ciphertextV1 + base64.StdEncoding.EncodeToString(sealed), nil
}

// Decrypt reverses [Cipher.Encrypt]. Any alteration of the value makes it fail
// with an error wrapping [ErrInvalidCiphertext].
func (c *Cipher) Decrypt(value string) (string, error) {
	encoded, ok := strings.CutPrefix(value, ciphertextV1)
	if !ok {
		return "", fmt.Errorf("%w: unknown format version", ErrInvalidCiphertext)
	}
	sealed, err := base64.StdEncoding.Strict().DecodeString(encoded)
	if err != nil {
		return "", fmt.Errorf("%w: bad base64", ErrInvalidCiphertext)
	}
	if len(sealed) < c.aead.Overhead() {
		return "", fmt.Errorf("%w: too short", ErrInvalidCiphertext)
	}
	plaintext, err := c.aead.Open(nil, nil, sealed, nil)
	if err != nil {
		return "", fmt.Errorf("%w: authentication failed (wrong key or altered value)", ErrInvalidCiphertext)
	}
	return string(plaintext), nil
}

// ParseKey decodes a [KeySize]-byte key given as 64 hex characters or as
// base64 (standard or URL alphabet, padded or not). Surrounding whitespace,
// such as a trailing newline in a key file, is ignored.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if key, err := hex.DecodeString(s); err == nil {
			return key, nil
		}
	}
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		if key, err := enc.Strict().DecodeString(s); err == nil && len(key) == KeySize {
			return key, nil
		}
	}
	// The value itself is deliberately left out of the message: it may be a
	// nearly correct key that ends up in logs.
	return nil, fmt.Errorf("seal: encryption key must be %d hex characters or base64 of %d bytes (got %d characters)",
		2*KeySize, KeySize, len(s))
}

// LoadOrCreateKey reads the key stored at path (see [ParseKey] for the
// format). If the file does not exist it generates a random key and writes it
// as hex with mode 0600, creating missing directories with mode 0700. A file
// that exists but cannot be parsed is an error, never silently replaced:
// replacing it would make every stored secret undecryptable.
//
// Whoever runs shipd must keep the key file and the database in separate
// backups; together they reveal every signing secret.
func LoadOrCreateKey(path string) ([]byte, error) {
	if key, err := readKeyFile(path); !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("seal: creating key directory: %w", err)
	}
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("seal: generating key: %w", err)
	}

	// The key is written to a temporary file and then hard-linked into place.
	// Linking fails if the name exists, so two processes starting at once
	// cannot overwrite each other's key, and no reader ever sees a partly
	// written file.
	tmp, err := os.CreateTemp(dir, ".tmp-key-*")
	if err != nil {
		return nil, fmt.Errorf("seal: creating key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("seal: creating key file: %w", err)
	}
	if _, err := tmp.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("seal: writing key file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("seal: writing key file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("seal: writing key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Another process won the race; its key is the one to use.
			return readKeyFile(path)
		}
		return nil, fmt.Errorf("seal: creating key file: %w", err)
	}
	return key, nil
}

func readKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("seal: reading key file: %w", err)
	}
	key, err := ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("seal: key file %s: %w", path, err)
	}
	return key, nil
}
