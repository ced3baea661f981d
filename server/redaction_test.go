package server_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/ups"
)

// echoingTokenEndpoint is a UPS whose token endpoint is down and says so
// by repeating the request it got: the Authorization header (the client
// id and secret in base64) and the form, as a hostile or careless carrier
// might.
func echoingTokenEndpoint(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		form, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"response":{"errors":[{"code":"10500","message":"cannot serve `+
			r.Header.Get("Authorization")+` `+url.QueryEscape(string(form))+`"}]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A carrier that echoes the credentials in an encoded form (the Basic
// header's base64) never puts them into a quote's carrierErrors, an
// error answer or a log line: neither the operator's nor a tenant's.
func TestEncodedCarrierSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	echo := echoingTokenEndpoint(t)
	const opID, opSecret = "operator-client-id", "operator-secret-1234"
	const tenantID, tenantSecret = "tenant-client-id", "tenant-secret-5678"
	op, err := ups.New(ups.Config{ClientID: opID, ClientSecret: opSecret, AccountNumber: "A1B2C3", BaseURL: echo.URL})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	b := setup(t, withoutRateLimits(), withLogs(logs), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{op}),
		func(c *app.Config) {
			c.CarrierAccounts = connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
				"UPS": {Production: echo.URL, Test: echo.URL}}})
		})
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	forms := func(id, secret string) []string {
		return []string{secret, base64.StdEncoding.EncodeToString([]byte(id + ":" + secret)), url.QueryEscape(secret)}
	}

	quote := b.doT(t, "POST", "/api/v1/labels/quote", live, liveBody())
	if !strings.Contains(string(quote.Body), "UPS") || !strings.Contains(string(quote.Body), carriers.Redacted) {
		t.Fatalf("the quote does not report UPS's failure, redacted: %d %s", quote.Status, quote.Body)
	}
	connect := b.doT(t, "POST", "/api/v1/carrier-accounts", live, map[string]any{"carrier": "UPS",
		"credentials": map[string]any{"clientId": tenantID, "clientSecret": tenantSecret, "accountNumber": "Z9Y8X7"}})
	if connect.Status < 400 {
		t.Fatalf("a carrier account was connected while its carrier is down: %d %s", connect.Status, connect.Body)
	}
	for what, text := range map[string]string{"the quote": string(quote.Body), "the connect answer": string(connect.Body), "the log": logs.String()} {
		for _, secret := range append(forms(opID, opSecret), forms(tenantID, tenantSecret)...) {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", what, secret)
			}
		}
	}
}
