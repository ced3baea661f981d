package dhlexpress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

// DHL's answers map onto the carrier error classes, with DHL's code and
// message kept: its refusals (400, 404, 422) are rejections, the
// credentials refused and its own failures are failures, a 429 or 503 is
// unavailable with its Retry-After, and what is not DHL's problem body is
// said so.
func TestErrorClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status     int
		body       string
		kind       error
		code, text string
	}{
		{400, dhlexpressfake.ErrorBody(400, "8003: Account not allowed for this service."), carriers.ErrRejected, "8003", "Account not allowed for this service."},
		{422, `{"title":"Validation error","detail":"Multiple problems found","status":"422","additionalDetails":["#/content: a","#/accounts: b"]}`,
			carriers.ErrRejected, "", "Multiple problems found; #/content: a; #/accounts: b"},
		{404, dhlexpressfake.ErrorBody(404, "No data found"), carriers.ErrRejected, "", "No data found"},
		{401, dhlexpressfake.ErrorBody(401, "Invalid credentials"), carriers.ErrFailed, "", "the carrier refused the credentials"},
		{500, dhlexpressfake.ErrorBody(500, "999: Process failure occurred. Process ID associated for that transaction (1234567890)"), carriers.ErrFailed, "999",
			"Process failure occurred. Process ID associated for that transaction (1234567890)"},
		{429, dhlexpressfake.ErrorBody(429, "Too many requests"), carriers.ErrUnavailable, "", "Too many requests"},
		{503, dhlexpressfake.BodyHTML, carriers.ErrUnavailable, "", "HTTP 503 without a DHL Express error body"},
		{502, dhlexpressfake.BodyHTML, carriers.ErrFailed, "", "HTTP 502 without a DHL Express error body"},
	} {
		c, fake, _ := newTestCarrier(t)
		fake.FailNext(dhlexpressfake.OpRates, tc.status, tc.body)
		_, err := c.Rates(context.Background(), domestic())
		ce := asCarrierError(t, err)
		if !errors.Is(err, tc.kind) || ce.Code != tc.code || ce.Message != tc.text || ce.HTTPStatus != tc.status || ce.Operation != "rate" {
			t.Errorf("%d: %+v, want %v %q %q", tc.status, ce, tc.kind, tc.code, tc.text)
		}
		if (tc.status == 429 || tc.status == 503) && ce.RetryAfter != 7*time.Second {
			t.Errorf("%d: Retry-After %s, want 7s", tc.status, ce.RetryAfter)
		}
	}
}

// An answer cut off in transit is unavailable (worth another try); one
// that does not parse is a failure; neither panics.
func TestBrokenAnswers(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	fake.Fail(dhlexpressfake.OpRates, dhlexpressfake.Failure{Status: 200, Body: dhlexpressfake.BodyTruncated, Truncate: true})
	if _, err := c.Rates(context.Background(), domestic()); !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("cut off: %v", err)
	}
	fake.FailNext(dhlexpressfake.OpRates, 200, dhlexpressfake.BodyMalformed)
	if _, err := c.Rates(context.Background(), domestic()); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("malformed: %v", err)
	}
	fake.FailNext(dhlexpressfake.OpRates, 200, dhlexpressfake.BodyTruncated)
	if _, err := c.Rates(context.Background(), domestic()); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("truncated JSON: %v", err)
	}
}

// The credentials never leave the adapter: not in the errors of texts DHL
// repeats them in (in clear, or the Basic header's encoding), not in the
// log of a call that got no answer, not when the configuration is printed.
func TestCredentialsRedacted(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	basic := carriers.BasicCredentials(dhlexpressfake.Username, dhlexpressfake.Password)
	fake.FailNext(dhlexpressfake.OpRates, 400, dhlexpressfake.ErrorBody(400, fmt.Sprintf("8003: Account %s of %s (password %s, Basic %s) not allowed",
		dhlexpressfake.AccountNumber, dhlexpressfake.Username, dhlexpressfake.Password, basic)))
	_, err := c.Rates(context.Background(), domestic())
	for _, secret := range []string{dhlexpressfake.AccountNumber, dhlexpressfake.Username, dhlexpressfake.Password, basic} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error repeats %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), carriers.Redacted) {
		t.Errorf("nothing redacted: %v", err)
	}

	var logs bytes.Buffer
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	cfg := Config{Username: dhlexpressfake.Username, Password: dhlexpressfake.Password, AccountNumber: dhlexpressfake.AccountNumber,
		BaseURL: dead.URL + "/mydhlapi", Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	down, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := down.Rates(context.Background(), domestic()); !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("a dead host: %v", err)
	}
	for _, printed := range []string{logs.String(), fmt.Sprint(cfg), fmt.Sprintf("%+v %#v", cfg, cfg), fmt.Sprint(down), fmt.Sprintf("%#v", down)} {
		for _, secret := range []string{dhlexpressfake.Password, basic} {
			if strings.Contains(printed, secret) {
				t.Errorf("%q is printed: %s", secret, printed)
			}
		}
	}
}

// A redirect is not followed: the Basic credentials would go with it.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere++ }))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	c := carrierAt(t, redirecting.URL+"/mydhlapi", nil)
	_, err := c.Rates(context.Background(), domestic())
	if ce := asCarrierError(t, err); !errors.Is(err, carriers.ErrFailed) || !strings.Contains(ce.Message, "redirect") || elsewhere != 0 {
		t.Errorf("redirect: %+v, %d calls elsewhere", ce, elsewhere)
	}
}

// An answer larger than any DHL answer is refused, not read whole.
func TestAnswerBounded(t *testing.T) {
	t.Parallel()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"products":[`))
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 12 {
			_, _ = w.Write(chunk)
		}
	}))
	defer big.Close()
	c := carrierAt(t, big.URL+"/mydhlapi", nil)
	_, err := c.Rates(context.Background(), domestic())
	if ce := asCarrierError(t, err); !errors.Is(err, carriers.ErrFailed) || !strings.Contains(ce.Message, "larger than") {
		t.Errorf("a 12 MiB answer: %+v", ce)
	}
}
