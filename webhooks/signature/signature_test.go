package signature

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testSecret = "whsec_test-secret"

var testBody = []byte(`{"id":"evt_123","type":"shipment.purchased","apiVersion":"2024-01-01","createdAt":"2024-01-01T00:00:00Z","data":{}}`)

func signedHeader(secret string, ts time.Time, body []byte) http.Header {
	h := http.Header{}
	h.Set(HeaderEvent, "shipment.purchased")
	h.Set(HeaderEventID, "evt_123")
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, Sign(secret, ts, body))
	return h
}

// TestSignKnownAnswer pins the wire format independently of Sign, so that a
// change to the signed string cannot pass by changing both sides at once.
func TestSignKnownAnswer(t *testing.T) {
	t.Parallel()
	ts := time.Unix(1700000000, 999_000_000) // sub-second part must be dropped
	m := hmac.New(sha256.New, []byte(testSecret))
	m.Write([]byte("1700000000." + string(testBody)))
	want := hex.EncodeToString(m.Sum(nil))

	got := Sign(testSecret, ts, testBody)
	if got != want {
		t.Errorf("Sign() = %s, want %s", got, want)
	}
	if got != strings.ToLower(got) || len(got) != 64 {
		t.Errorf("Sign() = %q, want 64 lowercase hex characters", got)
	}
}

func TestVerifyAt(t *testing.T) {
	t.Parallel()
	sent := time.Unix(1700000000, 0)

	type verifyCase struct {
		name      string
		header    http.Header
		body      []byte // nil means testBody
		secret    string // "" means testSecret, "-" means the empty secret
		tolerance time.Duration
		now       time.Time
		wantErr   error
	}
	tests := []verifyCase{
		{name: "round trip", header: signedHeader(testSecret, sent, testBody), now: sent},
		{name: "299s late accepted", header: signedHeader(testSecret, sent, testBody), now: sent.Add(299 * time.Second)},
		{name: "299s early accepted", header: signedHeader(testSecret, sent, testBody), now: sent.Add(-299 * time.Second)},
		{name: "exactly 300s accepted", header: signedHeader(testSecret, sent, testBody), now: sent.Add(300 * time.Second)},
		{name: "301s stale rejected", header: signedHeader(testSecret, sent, testBody), now: sent.Add(301 * time.Second), wantErr: ErrTimestampOutOfTolerance},
		{name: "301s in future rejected", header: signedHeader(testSecret, sent, testBody), now: sent.Add(-301 * time.Second), wantErr: ErrTimestampOutOfTolerance},
		{name: "custom tolerance", header: signedHeader(testSecret, sent, testBody), now: sent.Add(61 * time.Second), tolerance: time.Minute, wantErr: ErrTimestampOutOfTolerance},
		{name: "negative tolerance means default", header: signedHeader(testSecret, sent, testBody), now: sent.Add(299 * time.Second), tolerance: -1},
		{name: "tampered body", header: signedHeader(testSecret, sent, testBody), body: bytes.Replace(testBody, []byte("evt_123"), []byte("evt_124"), 1), now: sent, wantErr: ErrSignatureMismatch},
		{name: "wrong secret", header: signedHeader("whsec_other", sent, testBody), now: sent, wantErr: ErrSignatureMismatch},
		{name: "empty secret", header: signedHeader("", sent, testBody), secret: "-", now: sent, wantErr: ErrEmptySecret},
		{
			name: "timestamp replaced to dodge tolerance",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Set(HeaderTimestamp, strconv.FormatInt(sent.Add(time.Hour).Unix(), 10))
				return h
			}(),
			now:     sent.Add(time.Hour),
			wantErr: ErrSignatureMismatch,
		},
		{
			name: "uppercase hex accepted",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Set(HeaderSignature, strings.ToUpper(h.Get(HeaderSignature)))
				return h
			}(),
			now: sent,
		},
		{
			name: "signature not hex",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Set(HeaderSignature, "zz")
				return h
			}(),
			now:     sent,
			wantErr: ErrSignatureMismatch,
		},
		{
			name: "truncated signature",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Set(HeaderSignature, h.Get(HeaderSignature)[:62])
				return h
			}(),
			now:     sent,
			wantErr: ErrSignatureMismatch,
		},
		{
			name: "missing signature",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Del(HeaderSignature)
				return h
			}(),
			now:     sent,
			wantErr: ErrMissingSignature,
		},
		{
			name: "missing timestamp",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Del(HeaderTimestamp)
				return h
			}(),
			now:     sent,
			wantErr: ErrMissingTimestamp,
		},
		{name: "no headers at all", header: http.Header{}, now: sent, wantErr: ErrMissingSignature},
		{
			name: "timestamp in milliseconds",
			header: func() http.Header {
				h := signedHeader(testSecret, sent, testBody)
				h.Set(HeaderTimestamp, strconv.FormatInt(sent.UnixMilli(), 10))
				return h
			}(),
			now:     sent,
			wantErr: ErrSignatureMismatch,
		},
	}
	for _, badTS := range []string{"abc", "-1700000000", "+1700000000", "1700000000.5", "1e9", "99999999999999999999"} {
		h := signedHeader(testSecret, sent, testBody)
		h.Set(HeaderTimestamp, badTS)
		tests = append(tests, verifyCase{name: "invalid timestamp " + badTS, header: h, now: sent, wantErr: ErrInvalidTimestamp})
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := tt.body
			if body == nil {
				body = testBody
			}
			secret := tt.secret
			switch secret {
			case "":
				secret = testSecret
			case "-":
				secret = ""
			}
			err := VerifyAt(secret, tt.header, body, tt.tolerance, tt.now)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("VerifyAt() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestVerifyUsesCurrentTime(t *testing.T) {
	t.Parallel()
	now := time.Now()
	if err := Verify(testSecret, signedHeader(testSecret, now, testBody), testBody, 0); err != nil {
		t.Errorf("Verify(fresh delivery) = %v, want nil", err)
	}
	old := now.Add(-time.Hour)
	if err := Verify(testSecret, signedHeader(testSecret, old, testBody), testBody, 0); !errors.Is(err, ErrTimestampOutOfTolerance) {
		t.Errorf("Verify(hour-old delivery) = %v, want %v", err, ErrTimestampOutOfTolerance)
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()

	type received struct {
		Called  bool
		Body    string
		EventID string
	}
	type result struct {
		Status   int
		Response string
		Received received
	}

	bigBody := bytes.Repeat([]byte("x"), MaxBodyBytes+1)

	tests := []struct {
		name   string
		header func(body []byte) http.Header
		body   []byte
		// chunked hides the length so the handler's read cap, not the
		// Content-Length shortcut, is what rejects the body.
		chunked bool
		want    result
	}{
		{
			name:   "valid delivery reaches next with body intact",
			header: func(b []byte) http.Header { return signedHeader(testSecret, time.Now(), b) },
			body:   testBody,
			want:   result{Status: http.StatusOK, Response: "ok", Received: received{Called: true, Body: string(testBody), EventID: "evt_123"}},
		},
		{
			name:   "wrong secret",
			header: func(b []byte) http.Header { return signedHeader("whsec_other", time.Now(), b) },
			body:   testBody,
			want:   result{Status: http.StatusBadRequest, Response: ErrSignatureMismatch.Error() + "\n"},
		},
		{
			name:   "missing signature",
			header: func([]byte) http.Header { return http.Header{} },
			body:   testBody,
			want:   result{Status: http.StatusBadRequest, Response: ErrMissingSignature.Error() + "\n"},
		},
		{
			name:   "body over 1 MiB with Content-Length",
			header: func(b []byte) http.Header { return signedHeader(testSecret, time.Now(), b) },
			body:   bigBody,
			want:   result{Status: http.StatusRequestEntityTooLarge, Response: "request body too large\n"},
		},
		{
			name:    "body over 1 MiB chunked",
			header:  func(b []byte) http.Header { return signedHeader(testSecret, time.Now(), b) },
			body:    bigBody,
			chunked: true,
			want:    result{Status: http.StatusRequestEntityTooLarge, Response: "request body too large\n"},
		},
		{
			name:    "body of exactly 1 MiB accepted",
			header:  func(b []byte) http.Header { return signedHeader(testSecret, time.Now(), b) },
			body:    bigBody[:MaxBodyBytes],
			chunked: true,
			want:    result{Status: http.StatusOK, Response: "ok", Received: received{Called: true, Body: string(bigBody[:MaxBodyBytes]), EventID: "evt_123"}},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A channel rather than a shared variable: the server goroutine
			// writes it and the race detector cannot see the network ordering.
			calls := make(chan received, 1)
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("next: reading body: %v", err)
				}
				calls <- received{Called: true, Body: string(b), EventID: r.Header.Get(HeaderEventID)}
				io.WriteString(w, "ok")
			})
			srv := httptest.NewServer(Handler(testSecret, next))
			t.Cleanup(srv.Close)

			var body io.Reader = bytes.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // not a type http.NewRequest can measure
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL, body)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header(tt.body) {
				req.Header[k] = v
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			respBody, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}

			var got received
			select {
			case got = <-calls:
			default:
			}
			res := result{Status: resp.StatusCode, Response: string(respBody), Received: got}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("Handler result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHandlerEmptySecret(t *testing.T) {
	t.Parallel()
	called := false
	h := Handler("", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(testBody))
	for k, v := range signedHeader("", time.Now(), testBody) {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || called {
		t.Errorf("Handler(\"\") status = %d, next called = %v; want 500 and not called", rec.Code, called)
	}
}
