package server_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// Errors that sent a new user into retry loops (issue 44, item 4).

// unreachableNetwork is this server's network as carrier accounts' clients
// see it: while cut, no host name resolves (a DNS failure, as on a machine
// without egress), and the fakes' loopback addresses are reached as usual
// otherwise.
type unreachableNetwork struct{ cut atomic.Bool }

func (n *unreachableNetwork) client() *http.Client {
	dialer := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if n.cut.Load() {
			host, _, _ := net.SplitHostPort(addr)
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return dialer.DialContext(ctx, network, addr)
	}}}
}

// setupUnreachable is setupCarrierAccounts whose carrier accounts reach
// the fakes through n.
func setupUnreachable(t *testing.T, n *unreachableNetwork) (*bundle, *liveFakes, string) {
	t.Helper()
	var f *liveFakes
	b, fakes, live := setupLive(t, func(c *app.Config) {
		c.CarrierAccounts = func(cr carriers.Credentials) (carriers.Carrier, error) {
			return connectors.Catalog().Factory(carriers.FactoryOptions{HTTPClient: n.client(), URLs: map[carriers.ID]carriers.Endpoints{
				"UPS": {Production: f.ups.URL(), Test: f.ups.URL()}}})(cr)
		}
	})
	f = fakes
	return b, fakes, live
}

// wantUnreachable checks a 502 carrier_unreachable: no Retry-After (a
// retry in 30 s meets the same network), and a message that says it is
// the server that cannot reach the carrier.
func wantUnreachable(t *testing.T, r response) {
	t.Helper()
	m := wantError(t, r, http.StatusBadGateway, "carrier_unreachable")
	if ra := r.Header.Get("Retry-After"); ra != "" {
		t.Errorf("Retry-After %q on carrier_unreachable", ra)
	}
	msg, _ := m["error"].(string)
	for _, want := range []string{"shipd server could not reach", "UPS", "not a temporary"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if m["carrierErrors"] == nil {
		t.Errorf("no carrierErrors: %v", m)
	}
}

// Connecting a carrier account, new credentials and a quote, while this
// server's DNS resolves nothing: 502 carrier_unreachable without
// Retry-After, naming the server's network; a carrier's own outage stays
// 503 carrier_unavailable.
func TestCarrierUnreachableIsNotRetryLater(t *testing.T) {
	t.Parallel()
	n := &unreachableNetwork{}
	b, f, live := setupUnreachable(t, n)
	acme := connectUPS(t, b, live, upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)

	n.cut.Store(true)
	wantUnreachable(t, b.do("POST", "/api/v1/carrier-accounts", live, upsAccountBody(upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)))
	wantUnreachable(t, b.do("PATCH", "/api/v1/carrier-accounts/"+acme.ID, live, map[string]any{
		"credentials": map[string]any{"clientId": upsfake.ClientID, "clientSecret": upsfake.ClientSecret, "accountNumber": upsfake.AccountNumber}}))
	wantUnreachable(t, b.do("POST", "/api/v1/labels/quote", live, liveBody()))
	if n := countCarrierAccounts(t, b); n != 1 {
		t.Errorf("%d carrier accounts, want the one connected before", n)
	}

	n.cut.Store(false)
	f.ups.FailNext(upsfake.OpToken, http.StatusServiceUnavailable, upsfake.ErrorBody("9999", "down"))
	r := b.do("POST", "/api/v1/carrier-accounts", live, upsAccountBody(upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber))
	wantError(t, r, http.StatusServiceUnavailable, "carrier_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Error("a carrier's own outage without Retry-After")
	}
}

// The sandbox's Carriers Unreachable trigger answers a quote as a server
// that reaches no carrier: 502 carrier_unreachable.
func TestSandboxCarriersUnreachable(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	r := b.do("POST", "/api/v1/labels/quote", b.token, labelBody(withToName("Carriers Unreachable")))
	m := wantError(t, r, http.StatusBadGateway, "carrier_unreachable")
	if r.Header.Get("Retry-After") != "" || !strings.Contains(m["error"].(string), "could not reach") {
		t.Errorf("Retry-After %q, body %v", r.Header.Get("Retry-After"), m)
	}
}

// Every missing credential is named at once: field is the first (as
// before), fields lists them all, and so does the message.
func TestCarrierAccountMissingCredentialsListedTogether(t *testing.T) {
	t.Parallel()
	b, _, live := setupCarrierAccounts(t)
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, map[string]any{"carrier": "USPS",
		"credentials": map[string]any{"clientId": "abc", "accountNumber": "1234567890"}}), http.StatusUnprocessableEntity, "missing_field")
	want := []string{"credentials.clientSecret", "credentials.crid", "credentials.mid"}
	var got []string
	fields, _ := m["fields"].([]any)
	for _, f := range fields {
		got = append(got, f.(string))
	}
	if m["field"] != want[0] || !slices.Equal(got, want) {
		t.Errorf("field %v, fields %v; want %s first of %v", m["field"], m["fields"], want[0], want)
	}
	for _, f := range want {
		if !strings.Contains(m["error"].(string), f) {
			t.Errorf("message %q does not name %s", m["error"], f)
		}
	}
}
