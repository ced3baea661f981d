package seal_test

import (
	"bytes"
	"testing"

	"github.com/shipd-dev/shipd/seal"
)

const benchSecret = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef"

// Decrypt of the signing secret also runs once per delivery attempt.
func BenchmarkDecryptSecret(b *testing.B) {
	c, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		b.Fatal(err)
	}
	ct, err := c.Encrypt(benchSecret)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decrypt(ct); err != nil {
			b.Fatal(err)
		}
	}
}
