package webhooks

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestNewSigningSecret(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		s, err := NewSigningSecret()
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok {
			t.Fatalf("NewSigningSecret() = %q, want prefix whsec_", s)
		}
		raw, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil || len(raw) != 32 {
			t.Fatalf("NewSigningSecret() = %q: want base64url of 32 bytes (decoded %d bytes, err %v)", s, len(raw), err)
		}
		if seen[s] {
			t.Fatalf("NewSigningSecret() repeated %q", s)
		}
		seen[s] = true
	}
}
