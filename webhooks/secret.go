package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// SigningSecretPrefix starts every signing secret, so that a leaked secret is
// recognisable to people and secret scanners.
const SigningSecretPrefix = "whsec_"

// NewSigningSecret returns a fresh secret: [SigningSecretPrefix] followed by
// 32 random bytes in unpadded base64url, which is safe in URLs, headers and
// environment variables without quoting.
func NewSigningSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("webhooks: generating signing secret: %w", err)
	}
	return SigningSecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}
