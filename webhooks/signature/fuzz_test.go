package signature

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzVerify gives VerifyAt any secret, header values, body and tolerance.
// Run it with
//
//	go test -run '^$' -fuzz '^FuzzVerify$' -fuzztime 20s ./webhooks/signature/
//
// Properties: VerifyAt never panics and accepts only a signature that is the
// HMAC of the timestamp header it got and the body; a header Sign made for
// (secret, t, body) verifies at t, and fails once the body changes by one
// byte, under another secret, or a tolerance and a second past t.
func FuzzVerify(f *testing.F) {
	sent := time.Unix(1700000000, 0)
	good := Sign(testSecret, sent, testBody)
	f.Add(testSecret, good, "1700000000", "", testBody, int64(0), int64(1700000000), uint(0), byte(1))
	f.Add(testSecret, " "+good+"\t", " 1700000000 ", "", testBody, int64(time.Minute), int64(1700000060), uint(5), byte(0x80))
	f.Add(testSecret, strings.ToUpper(good), "1700000000", good, testBody, int64(-1), int64(0), uint(1), byte(0xff))
	f.Add(testSecret, good+good, "+1700000000", "", testBody, int64(1), int64(999999999999999999), uint(3), byte(2))
	f.Add(testSecret, good[:63], "-1700000000", "", []byte{}, int64(1<<62), int64(1), uint(0), byte(3))
	f.Add(testSecret, "zz"+good[2:], "0x6553f100", "v1="+good, []byte(nil), int64(-1<<63), int64(1<<62), uint(0), byte(4))
	f.Add("", good, "1700000000", "", testBody, int64(0), int64(1700000000), uint(0), byte(1))
	f.Add("k", "", "", "", []byte("{}"), int64(0), int64(0), uint(0), byte(1))
	f.Add("\x00", "00", "00000000000000000001700000000", "", []byte("\x00"), int64(0), int64(-1), uint(0), byte(1))
	f.Add(strings.Repeat("s", 65), good, "1e9", "", bytes.Repeat([]byte("b"), 4096), int64(time.Hour), int64(1700000000), uint(4095), byte(7))
	f.Add("whsec_é\u202e", good, "１７００", "", []byte("\xff\xfe"), int64(0), int64(1700000000), uint(1), byte(9))
	f.Fuzz(func(t *testing.T, secret, sigHeader, tsHeader, extraSig string, body []byte, tolerance, unix int64, at uint, flip byte) {
		// Arbitrary headers, a second signature value among them.
		h := http.Header{}
		h.Set(HeaderSignature, sigHeader)
		if extraSig != "" {
			h.Add(HeaderSignature, extraSig)
		}
		h.Set(HeaderTimestamp, tsHeader)
		now := time.Unix(unix, 0)
		if err := VerifyAt(secret, h, body, time.Duration(tolerance), now); err == nil {
			got, decErr := hex.DecodeString(strings.TrimSpace(sigHeader))
			want := mac(secret, strings.TrimSpace(tsHeader), body)
			if secret == "" || decErr != nil || !bytes.Equal(got, want) {
				t.Fatalf("VerifyAt accepted signature %q for timestamp %q under secret %q", sigHeader, tsHeader, secret)
			}
		}

		if secret == "" {
			if err := VerifyAt(secret, signedHeader(secret, now, body), body, 0, now); !errors.Is(err, ErrEmptySecret) {
				t.Fatalf("empty secret: %v, want ErrEmptySecret", err)
			}
			return
		}
		// The sender's timestamps: whole seconds since 1970, at most 18
		// digits (parseTimestamp refuses a sign and longer numbers).
		if unix < 0 {
			unix = -(unix + 1)
		}
		ts := time.Unix(unix%1_000_000_000_000_000_000, 0)
		header := signedHeader(secret, ts, body)
		if err := VerifyAt(secret, header, body, time.Duration(tolerance), ts); err != nil {
			t.Fatalf("Sign's own header does not verify at its time: %v", err)
		}

		// One byte of the body changed.
		changed := bytes.Clone(body)
		if len(changed) == 0 {
			changed = []byte{flip}
		} else {
			changed[at%uint(len(changed))] ^= flip | 1
		}
		if err := VerifyAt(secret, header, changed, time.Duration(tolerance), ts); !errors.Is(err, ErrSignatureMismatch) {
			t.Fatalf("body changed from %q to %q: %v, want ErrSignatureMismatch", body, changed, err)
		}

		// Another secret: one byte changed, so the key differs even after
		// HMAC pads short keys with zeros ("k" and "k\x00" are one key).
		other := []byte(secret)
		other[at%uint(len(other))] ^= flip | 1
		if err := VerifyAt(string(other), header, body, time.Duration(tolerance), ts); !errors.Is(err, ErrSignatureMismatch) {
			t.Fatalf("secret %q verifies a signature made with %q: %v", other, secret, err)
		}

		// Past the tolerance.
		tol := time.Duration(tolerance)
		if tol <= 0 {
			tol = DefaultTolerance
		}
		if tol < 100*365*24*time.Hour {
			late := ts.Add(tol.Truncate(time.Second) + time.Second)
			if err := VerifyAt(secret, header, body, time.Duration(tolerance), late); !errors.Is(err, ErrTimestampOutOfTolerance) {
				t.Fatalf("verified %s after signing with tolerance %s: %v", late.Sub(ts), tol, err)
			}
		}
		if h := header.Get(HeaderTimestamp); h != strconv.FormatInt(ts.Unix(), 10) {
			t.Fatalf("timestamp header %q for %d", h, ts.Unix())
		}
	})
}
