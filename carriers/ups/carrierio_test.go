package ups

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// internalDetail matches what API clients must not see of a failure: URLs,
// loopback addresses and ports, Go package paths and Go type syntax.
var internalDetail = regexp.MustCompile(`https?://|127\.0\.0\.1|\[::1\]|github\.com/|\bups\.[a-zA-Z]|oneOrMany|\bmap\[|\[\]|\*[a-z]+\.|:\d{2,5}\b`)

// elsewhere is the host a hostile or confused carrier redirects to; it
// counts what reaches it, which must be nothing.
func elsewhere(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"stolen","expires_in":"3600","RateResponse":{"RatedShipment":[{"Service":{"Code":"03"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"0.01"}}]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"token", "rate"} {
		other, hits := elsewhere(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == tokenPath && at != "token" {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]string{"access_token": "tok-1234567", "expires_in": "3600", "token_type": "Bearer"})
				return
			}
			http.Redirect(w, r, other.URL+"/steal?what=everything", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(srv.Close)
		var logs bytes.Buffer
		c, err := New(Config{ClientID: "client-id", ClientSecret: "s3cr3t-value", AccountNumber: "Z9Y8X7",
			BaseURL: srv.URL, HTTPClient: srv.Client(), Now: testNow, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
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
		ce := carrierError(t, err)
		if ce.Operation != at || !strings.Contains(ce.Message, "redirect to 127.0.0.1") || strings.Contains(ce.Message, "steal") {
			t.Errorf("redirect at %s: %+v; want the host named, not the Location", at, ce)
		}
		if !strings.Contains(logs.String(), "/steal?what=everything") {
			t.Errorf("redirect at %s: the Location is not logged: %s", at, logs.String())
		}
	}
}

func TestUnreachableUPSMessage(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	var logs bytes.Buffer
	c, err := New(Config{ClientID: "id", ClientSecret: "s3cr3t-value", AccountNumber: "A1B2C3", BaseURL: url, Now: testNow,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	if diff := cmp.Diff("UPS could not be reached (connection refused)", ce.Message); diff != "" || !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("message (-want +got):\n%s%v", diff, err)
	}
	if internalDetail.MatchString(err.Error()) {
		t.Errorf("%q shows internal detail", err.Error())
	}
	if !strings.Contains(logs.String(), strings.TrimPrefix(url, "http://")) {
		t.Errorf("the log lost the address: %s", logs.String())
	}
	if strings.Contains(logs.String(), "s3cr3t-value") {
		t.Errorf("the log shows the secret: %s", logs.String())
	}
}

func TestMalformedAnswerMessages(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"RatedShipment a string": `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1"}},"RatedShipment":"nope"}}`,
		"RatedShipment numbers":  `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1"}},"RatedShipment":[1,2]}}`,
		"charges an array":       `{"RateResponse":{"RatedShipment":{"Service":{"Code":"03"},"TotalCharges":[]}}}`,
		"not JSON":               `{"RateResponse":`,
		"HTML":                   `<html>`,
	} {
		c, fake, _ := testCarrier(t)
		fake.Fail(upsfake.OpRate, upsfake.Failure{Status: 200, Body: body})
		_, err := c.Rates(context.Background(), domesticShipment())
		ce := carrierError(t, err)
		if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(ce.Message, "malformed answer") {
			t.Errorf("%s: %v, want a malformed answer", name, err)
		}
		t.Logf("%s: %v", name, err)
		if internalDetail.MatchString(err.Error()) {
			t.Errorf("%s: %q shows internal detail", name, err.Error())
		}
	}
}

func TestZeroPricedServicesAreLeftOut(t *testing.T) {
	t.Parallel()
	charge := func(code, amount string) string {
		return `{"Service":{"Code":"` + code + `"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"` + amount + `"}}`
	}
	ok := `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1"}},"RatedShipment":[` + charge("03", "0.00") + `,` + charge("02", "21.40") + `]}}`
	c, fake, _ := testCarrier(t)
	fake.Fail(upsfake.OpRate, upsfake.Failure{Status: 200, Body: ok})
	rates, err := c.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rates {
		got = append(got, r.Service)
	}
	if len(rates) != 1 || rates[0].CarrierRateCents != 2140 {
		t.Errorf("rates %v: want only the 21.40 service, the one at 0 left out", got)
	}
	all := `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1"}},"RatedShipment":[` + charge("03", "0") + `]}}`
	fake.Fail(upsfake.OpRate, upsfake.Failure{Status: 200, Body: all})
	rates, err = c.Rates(context.Background(), domesticShipment())
	if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "priced at 0") {
		t.Errorf("every service at 0: rates %v, error %v; want ErrFailed", rates, err)
	}
}
