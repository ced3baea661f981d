// Package signature signs shipd's webhook deliveries and verifies them for the
// Go programs that receive them. It imports only the standard library, so a
// receiver depends on nothing else of shipd.
//
// A delivery is an HTTP POST whose body is the JSON event envelope. It carries
// these headers:
//
//	X-Service-Event      event type, for routing without parsing the body
//	X-Service-Event-Id   envelope id; persist it and drop duplicates, because
//	                     delivery is at-least-once
//	X-Service-Timestamp  Unix seconds when the delivery was sent
//	X-Service-Signature  lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>",
//	                     keyed with the subscription's signing secret
//
// Receivers should use [Verify] or wrap their handler in [Handler].
package signature

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names set on every delivery.
const (
	HeaderEvent     = "X-Service-Event"
	HeaderEventID   = "X-Service-Event-Id"
	HeaderSignature = "X-Service-Signature"
	HeaderTimestamp = "X-Service-Timestamp"
)

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock. It bounds the window in which a captured delivery can be
// replayed, while leaving room for clock skew and the sender's retries, each
// of which is signed afresh.
const DefaultTolerance = 300 * time.Second

// MaxBodyBytes is the largest body [Handler] will read. Envelopes are far
// smaller; the cap stops an unauthenticated client from making the receiver
// buffer an arbitrarily large body before the signature can be checked.
const MaxBodyBytes = 1 << 20

// Verification failures. Callers distinguish them with errors.Is.
var (
	ErrMissingSignature        = errors.New("webhook signature: missing " + HeaderSignature + " header")
	ErrMissingTimestamp        = errors.New("webhook signature: missing " + HeaderTimestamp + " header")
	ErrInvalidTimestamp        = errors.New("webhook signature: invalid " + HeaderTimestamp + " header")
	ErrTimestampOutOfTolerance = errors.New("webhook signature: timestamp outside tolerance")
	ErrSignatureMismatch       = errors.New("webhook signature: signature mismatch")
	// ErrEmptySecret is returned rather than verifying with an empty key,
	// because an HMAC under an empty key can be computed by anyone, so such a
	// "verification" would accept forged deliveries.
	ErrEmptySecret = errors.New("webhook signature: empty signing secret")
)

// Sign returns the value of the X-Service-Signature header for body sent at
// timestamp. The timestamp is truncated to whole seconds, matching the
// X-Service-Timestamp header the sender must set to
// strconv.FormatInt(timestamp.Unix(), 10).
func Sign(secret string, timestamp time.Time, body []byte) string {
	return hex.EncodeToString(mac(secret, strconv.FormatInt(timestamp.Unix(), 10), body))
}

// mac takes the timestamp as the exact header text so that the verifier
// authenticates what was received rather than a re-formatted value.
func mac(secret, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a delivery's signature and timestamp against the receiver's
// clock. body must be the raw request body, before any JSON decoding, since
// re-encoding would change the bytes that were signed. A tolerance <= 0 means
// [DefaultTolerance].
func Verify(secret string, header http.Header, body []byte, tolerance time.Duration) error {
	return VerifyAt(secret, header, body, tolerance, time.Now())
}

// VerifyAt is [Verify] with an explicit current time.
func VerifyAt(secret string, header http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	if secret == "" {
		return ErrEmptySecret
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}

	sigHex := strings.TrimSpace(header.Get(HeaderSignature))
	if sigHex == "" {
		return ErrMissingSignature
	}
	tsText := strings.TrimSpace(header.Get(HeaderTimestamp))
	if tsText == "" {
		return ErrMissingTimestamp
	}
	ts, err := parseTimestamp(tsText)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrInvalidTimestamp, tsText)
	}

	// The signature is checked before the clock so that an attacker without
	// the secret learns nothing about the receiver's tolerance window.
	got, err := hex.DecodeString(sigHex)
	if err != nil || !hmac.Equal(got, mac(secret, tsText, body)) {
		return ErrSignatureMismatch
	}

	skew := now.Sub(time.Unix(ts, 0))
	if skew < 0 {
		skew = -skew
	}
	if skew > tolerance {
		return fmt.Errorf("%w: delivery timestamp %s is %s away from now (tolerance %s)",
			ErrTimestampOutOfTolerance, time.Unix(ts, 0).UTC().Format(time.RFC3339), skew.Truncate(time.Second), tolerance)
	}
	return nil
}

// parseTimestamp accepts plain decimal digits only; strconv.ParseInt would
// also take a sign, which the sender never produces.
func parseTimestamp(s string) (int64, error) {
	if len(s) > 18 {
		return 0, errors.New("too long")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("not a decimal number")
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// Handler verifies each request with [DefaultTolerance] before passing it to
// next, so next can trust the body. next receives the request with the body
// restored and can read it in full. Rejected requests get a 400 with a
// plain-text reason (413 if the body exceeds [MaxBodyBytes]); the reason
// helps whoever is debugging a misconfigured secret and reveals nothing that
// the sender does not already know.
//
// Handler does not deduplicate by X-Service-Event-Id; that needs storage the
// receiver owns.
func Handler(secret string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if secret == "" {
			// A misconfigured receiver is the receiver's fault, not the
			// sender's, so a 5xx makes the sender retry once it is fixed.
			http.Error(w, "webhook receiver has no signing secret configured", http.StatusInternalServerError)
			return
		}
		if r.ContentLength > MaxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		if err := Verify(secret, r.Header, body, DefaultTolerance); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}
