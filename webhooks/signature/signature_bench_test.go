package signature_test

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/webhooks/signature"
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
		_ = signature.Sign(benchSecret, now, benchBody)
	}
}

// Verify is what a receiver runs on every delivery.
func BenchmarkVerify(b *testing.B) {
	now := time.Now()
	h := http.Header{}
	h.Set(signature.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(signature.HeaderSignature, signature.Sign(benchSecret, now, benchBody))
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if err := signature.VerifyAt(benchSecret, h, benchBody, 0, now); err != nil {
			b.Fatal(err)
		}
	}
}
