package fedex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// internalDetail matches what API clients must not see of a failure: URLs,
// loopback addresses and ports, Go package paths and Go type syntax.
var internalDetail = regexp.MustCompile(`https?://|127\.0\.0\.1|\[::1\]|github\.com/|\bfedex\.[a-z]|\bmap\[|\[\]|\*[a-z]+\.|:\d{2,5}\b`)

// loggedCarrier is a carrier on fake whose log goes to the returned buffer.
func loggedCarrier(t *testing.T, fake *fedexfake.Server, secret string) (*Carrier, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	c, err := New(Config{ClientID: fedexfake.ClientID, ClientSecret: secret, AccountNumber: fedexfake.AccountNumber,
		BaseURL: fake.URL(), Now: func() time.Time { return testNow }, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return c, &logs
}

// TestCarrierTextEchoingSecrets: a FedEx that repeats the client secret,
// the API key and the account number in its error bodies, on the token
// call and on every API call, has them redacted in the errors (the quote's
// carrierErrors, a failed purchase's errorMessage) and in the log.
func TestCarrierTextEchoingSecrets(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	c, logs := loggedCarrier(t, fake, fedexfake.ClientSecret)
	echo := fmt.Sprintf("client_secret=%s client_id=%s account %s is not authorized", fedexfake.ClientSecret, fedexfake.ClientID, fedexfake.AccountNumber)
	ctx := context.Background()
	var errs []error
	fake.FailNext(fedexfake.OpToken, 401, fedexfake.ErrorBody(fedexfake.AccountNumber, echo))
	_, err := c.Rates(ctx, domestic())
	errs = append(errs, err)
	fake.FailNext(fedexfake.OpToken, 500, fedexfake.ErrorBody(fedexfake.ClientSecret, echo))
	_, err = c.Rates(ctx, domestic())
	errs = append(errs, err)
	for _, status := range []int{400, 403, 500, 503} {
		fake.FailNext(fedexfake.OpRate, status, fedexfake.ErrorBody(fedexfake.AccountNumber, echo))
		_, err = c.Rates(ctx, domestic())
		errs = append(errs, err)
		fake.FailNext(fedexfake.OpShip, status, fedexfake.ErrorBody("SHIP.ERROR", echo))
		_, err = c.Buy(ctx, buyRequest("shp_echo", domestic(), "Ground"))
		errs = append(errs, err)
	}
	fake.FailNext(fedexfake.OpTrack, 400, fedexfake.ErrorBody("TRACK.ERROR", echo))
	_, err = c.Track(ctx, "794644790138")
	errs = append(errs, err)
	// A secret longer than the excerpt's cut: redacted before the cut.
	fake.FailNext(fedexfake.OpRate, 400, fedexfake.ErrorBody("X", strings.Repeat("a", carriers.ExcerptLimit-5)+fedexfake.ClientSecret))
	_, err = c.Rates(ctx, domestic())
	errs = append(errs, err)
	fake.Close()
	_, err = c.Rates(ctx, domestic())
	errs = append(errs, err)

	texts := []string{logs.String()}
	for i, err := range errs {
		var ce *carriers.Error
		if !errors.As(err, &ce) {
			t.Fatalf("call %d: %v is not a carriers.Error", i, err)
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", ce), ce.Code, ce.Message)
	}
	for _, text := range texts {
		for _, secret := range []string{fedexfake.ClientSecret, fedexfake.ClientID, fedexfake.AccountNumber, fedexfake.ClientSecret[:8]} {
			if strings.Contains(text, secret) {
				t.Errorf("%q shows %q", text, secret)
			}
		}
	}
	if !strings.Contains(errs[2].Error(), carriers.Redacted) {
		t.Errorf("%v: the echoed secrets were not redacted but dropped", errs[2])
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	for _, at := range []string{tokenPath, ratePath} {
		var hits atomic.Int64
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"stolen","token_type":"bearer","expires_in":3600,"output":{}}`))
		}))
		t.Cleanup(other.Close)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == tokenPath && at != tokenPath {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"access_token":"tok-1234567","token_type":"bearer","expires_in":3600}`))
				return
			}
			http.Redirect(w, r, other.URL+"/steal?what=everything", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(srv.Close)
		var logs bytes.Buffer
		c, err := New(Config{ClientID: "api-key", ClientSecret: "s3cr3t-value", AccountNumber: "510087020",
			BaseURL: srv.URL, HTTPClient: srv.Client(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rates, err := c.Rates(context.Background(), domestic())
		if !errors.Is(err, carriers.ErrFailed) {
			t.Fatalf("redirect at %s: rates %v, error %v; want ErrFailed", at, rates, err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("redirect at %s: the other host got %d requests", at, n)
		}
		ce := asCarrierError(t, err)
		if !strings.Contains(ce.Message, "redirect to 127.0.0.1") || strings.Contains(ce.Message, "steal") || ce.HTTPStatus != http.StatusTemporaryRedirect {
			t.Errorf("redirect at %s: %+v; want the host named, not the Location", at, ce)
		}
		if !strings.Contains(logs.String(), "/steal?what=everything") {
			t.Errorf("redirect at %s: the Location is not logged: %s", at, logs.String())
		}
	}
}

func TestTransportAndDecodeMessagesHideInternals(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, err := New(Config{ClientID: "api-key", ClientSecret: "s3cr3t-value", AccountNumber: "510087020", BaseURL: dead.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domestic())
	if ce := asCarrierError(t, err); ce.Message != "FedEx could not be reached (connection refused)" || ce.Operation != opToken {
		t.Errorf("closed port: %+v", ce)
	}
	if internalDetail.MatchString(err.Error()) {
		t.Errorf("closed port: %q shows internal detail", err.Error())
	}
	for name, body := range map[string]string{
		"output a string":  `{"output":"x"}`,
		"details a number": `{"output":{"rateReplyDetails":7}}`,
		"charge an object": rateBody(`{"amount":12}`, `"USD"`),
		"not JSON":         `{"output":`,
	} {
		c, fake := newTestCarrier(t)
		fake.FailNext(fedexfake.OpRate, 200, body)
		_, err := c.Rates(context.Background(), domestic())
		if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "does not parse") {
			t.Errorf("%s: %v, want a malformed answer", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
		if internalDetail.MatchString(err.Error()) {
			t.Errorf("%s: %q shows internal detail", name, err.Error())
		}
	}
}

func TestRetryAfterIsClamped(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]time.Duration{
		"86400000":                      time.Hour,
		"999999999999":                  time.Hour,
		"Fri, 31 Dec 9999 23:59:59 GMT": time.Hour,
		"30":                            30 * time.Second,
	} {
		c, fake := newTestCarrier(t)
		fake.Fail(fedexfake.OpRate, fedexfake.Failure{Status: 429, RetryAfter: header, Body: fedexfake.ErrorBody("RATE.LIMIT.EXCEEDED", "Too many requests.")})
		_, err := c.Rates(context.Background(), domestic())
		if ce := asCarrierError(t, err); ce.RetryAfter != want {
			t.Errorf("Retry-After %q: %v, want %v", header, ce.RetryAfter, want)
		}
	}
}

func TestZeroPricedServiceIsLeftOut(t *testing.T) {
	t.Parallel()
	detail := func(service, charge string) string {
		return `{"serviceType":"` + service + `","ratedShipmentDetails":[{"rateType":"ACCOUNT","totalNetCharge":` + charge + `,"currency":"USD"}]}`
	}
	c, fake := newTestCarrier(t)
	fake.FailNext(fedexfake.OpRate, 200, `{"output":{"rateReplyDetails":[`+detail("FEDEX_GROUND", "0")+`,`+detail("PRIORITY_OVERNIGHT", "45.10")+`]}}`)
	rates, err := c.Rates(context.Background(), domestic())
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 1 || rates[0].CarrierRateCents != 4510 {
		t.Errorf("rates = %+v, want only the 45.10 service", rates)
	}
	fake.FailNext(fedexfake.OpRate, 200, `{"output":{"rateReplyDetails":[`+detail("FEDEX_GROUND", "0.00")+`]}}`)
	rates, err = c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "priced at 0") {
		t.Errorf("every service at 0: rates %v, error %v; want ErrFailed", rates, err)
	}
}
