package webhooks_test

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/webhooks"
)

// benchBody is about the size of a shipment.purchased envelope (a shipment
// with its addresses, parcel and a tracking event).
var benchBody = bytes.Repeat([]byte(`{"id":"shp_0123456789abcdef01234567","status":"purchased"},`), 32)

const benchSecret = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef"

// Sign runs once per delivery attempt.
func BenchmarkSign(b *testing.B) {
	now := time.Now()
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		_ = webhooks.Sign(benchSecret, now, benchBody)
	}
}

// Verify is what a receiver runs on every delivery.
func BenchmarkVerify(b *testing.B) {
	now := time.Now()
	h := http.Header{}
	h.Set(webhooks.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(webhooks.HeaderSignature, webhooks.Sign(benchSecret, now, benchBody))
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if err := webhooks.VerifyAt(benchSecret, h, benchBody, 0, now); err != nil {
			b.Fatal(err)
		}
	}
}

// Decrypt of the signing secret also runs once per delivery attempt.
func BenchmarkDecryptSecret(b *testing.B) {
	c, err := webhooks.NewCipher(bytes.Repeat([]byte{7}, 32))
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
