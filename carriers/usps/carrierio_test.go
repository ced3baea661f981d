package usps

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
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// internalDetail matches what API clients must not see of a failure: URLs,
// loopback addresses and ports, Go package paths and Go type syntax.
var internalDetail = regexp.MustCompile(`https?://|127\.0\.0\.1|\[::1\]|github\.com/|\busps\.[a-z]|\bmap\[|\[\]|\*[a-z]+\.|:\d{2,5}\b`)

func loggedCarrier(t *testing.T, fake *uspsfake.Server) (*Carrier, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := testConfig(fake)
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, &logs
}

// TestCarrierTextEchoingSecrets: a USPS that repeats the client secret and
// the EPS account number in its error bodies (token, payment, rates,
// labels, plain-text pages) has them redacted in the errors (the quote's
// carrierErrors, a failed purchase's errorMessage) and in the log.
func TestCarrierTextEchoingSecrets(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c, logs := loggedCarrier(t, fake)
	echo := fmt.Sprintf("client_secret=%s accountNumber %s is not authorized", uspsfake.ClientSecret, uspsfake.AccountNumber)
	body := uspsfake.ErrorBody("3", 400, echo, uspsfake.AccountNumber, echo, "accountNumber")
	ctx := context.Background()
	var errs []error
	fake.FailNext(uspsfake.OpToken, 500, body)
	_, err := c.Rates(ctx, domesticShipment())
	errs = append(errs, err)
	fake.FailNext(uspsfake.OpToken, 400, `{"error":"invalid_client","error_description":"`+echo+`"}`)
	_, err = c.Rates(ctx, domesticShipment())
	errs = append(errs, err)
	for _, status := range []int{400, 403, 500, 503} {
		fake.FailNext(uspsfake.OpRates, status, body)
		_, err = c.Rates(ctx, domesticShipment())
		errs = append(errs, err)
		fake.FailNext(uspsfake.OpLabel, status, body)
		_, err = c.Buy(ctx, buyRequest("shp_echo", "Priority", domesticShipment()))
		errs = append(errs, err)
	}
	fake.FailNext(uspsfake.OpPayment, 400, body)
	fake.ExpireTokens()
	_, err = c.Buy(ctx, buyRequest("shp_echo2", "Priority", domesticShipment()))
	errs = append(errs, err)
	fake.FailNext(uspsfake.OpRates, 502, "<html>proxy: "+echo+"</html>")
	_, err = c.Rates(ctx, domesticShipment())
	errs = append(errs, err)
	fake.Close()
	_, err = c.Rates(ctx, domesticShipment())
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
		for _, secret := range []string{uspsfake.ClientSecret, uspsfake.AccountNumber} {
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
	for _, at := range []string{tokenPath, optionsPath} {
		var hits atomic.Int64
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"stolen","token_type":"Bearer","expires_in":3600,"pricingOptions":[]}`))
		}))
		t.Cleanup(other.Close)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == tokenPath && at != tokenPath {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"access_token":"tok-1234567","token_type":"Bearer","expires_in":3600}`))
				return
			}
			http.Redirect(w, r, other.URL+"/steal?what=everything", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(srv.Close)
		var logs bytes.Buffer
		c, err := New(Config{ClientID: "id", ClientSecret: "s3cr3t-value", CRID: "1", MID: "2", AccountNumber: "1000000000",
			BaseURL: srv.URL, HTTPClient: srv.Client(), Now: fixedNow, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rates, err := c.Rates(context.Background(), domesticShipment())
		if !errors.Is(err, carriers.ErrFailed) {
			t.Fatalf("redirect at %s: rates %v, error %v; want ErrFailed", at, rates, err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("redirect at %s: the other host got %d requests", at, n)
		}
		var ce *carriers.Error
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, "redirect to 127.0.0.1") || strings.Contains(ce.Message, "steal") {
			t.Errorf("redirect at %s: %+v; want the host named, not the Location", at, ce)
		}
		if !strings.Contains(logs.String(), "/steal?what=everything") {
			t.Errorf("redirect at %s: the Location is not logged: %s", at, logs.String())
		}
	}
}

func TestTransportAndDecodeMessagesHideInternals(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c, logs := loggedCarrier(t, fake)
	fake.Close()
	_, err := c.Rates(context.Background(), domesticShipment())
	var ce *carriers.Error
	if !errors.As(err, &ce) || ce.Message != "USPS could not be reached (connection refused)" || !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("closed port: %v", err)
	}
	if internalDetail.MatchString(err.Error()) {
		t.Errorf("closed port: %q shows internal detail", err.Error())
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the log lost the detail: %s", logs.String())
	}
	for name, body := range map[string]string{
		"pricingOptions a string": `{"pricingOptions":"x"}`,
		"rateOptions an object":   `{"pricingOptions":[{"shippingOptions":[{"mailClass":"PRIORITY_MAIL","rateOptions":{"a":1}}]}]}`,
		"not JSON":                `{"pricingOptions":`,
	} {
		fake := newFake(t)
		c := newCarrier(t, fake)
		fake.FailNext(uspsfake.OpRates, 200, body)
		_, err := c.Rates(context.Background(), domesticShipment())
		if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "not") {
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
		fake := newFake(t)
		c := newCarrier(t, fake)
		fake.FailNextWith(uspsfake.OpRates, uspsfake.Failure{Status: 429, Header: http.Header{"Retry-After": {header}}})
		_, err := c.Rates(context.Background(), domesticShipment())
		var ce *carriers.Error
		if !errors.As(err, &ce) || ce.RetryAfter != want {
			t.Errorf("Retry-After %q: %v, want %v", header, err, want)
		}
	}
}

func TestZeroPricedServiceIsLeftOut(t *testing.T) {
	t.Parallel()
	option := func(mailClass, indicator, price string) string {
		return `{"mailClass":"` + mailClass + `","rateOptions":[{"totalBasePrice":` + price +
			`,"rates":[{"price":` + price + `,"rateIndicator":"` + indicator + `","mailClass":"` + mailClass + `"}]}]}`
	}
	answer := func(options ...string) string {
		return `{"pricingOptions":[{"shippingOptions":[` + strings.Join(options, ",") + `]}]}`
	}
	fake := newFake(t)
	c := newCarrier(t, fake)
	fake.FailNext(uspsfake.OpRates, 200, answer(option("PRIORITY_MAIL", "SP", "0"), option("USPS_GROUND_ADVANTAGE", "SP", "7.45")))
	rates, err := c.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 1 || rates[0].Service != "GroundAdvantage" || rates[0].CarrierRateCents != 745 {
		t.Errorf("rates = %+v, want only GroundAdvantage at 7.45", rates)
	}
	// A 0 option does not undercut a priced option of the same service.
	fake.FailNext(uspsfake.OpRates, 200, answer(option("PRIORITY_MAIL", "SP", "0.00"), option("PRIORITY_MAIL", "SP", "9.85")))
	rates, err = c.Rates(context.Background(), domesticShipment())
	if err != nil || len(rates) != 1 || rates[0].CarrierRateCents != 985 {
		t.Errorf("rates = %+v, %v; want Priority at 9.85", rates, err)
	}
	fake.FailNext(uspsfake.OpRates, 200, answer(option("PRIORITY_MAIL", "SP", "0")))
	rates, err = c.Rates(context.Background(), domesticShipment())
	if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "priced at 0") {
		t.Errorf("every service at 0: rates %v, error %v; want ErrFailed", rates, err)
	}
}
