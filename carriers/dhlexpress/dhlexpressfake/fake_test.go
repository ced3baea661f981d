package dhlexpressfake_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// golden reads one of the adapter's golden requests: a shipment the fake
// creates as it is.
func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func post(t *testing.T, f *dhlexpressfake.Server, path, body string, mod func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.BaseURL()+path, strings.NewReader(body))
	req.SetBasicAuth(dhlexpressfake.Username, dhlexpressfake.Password)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-version", "3.1.0")
	if mod != nil {
		mod(req)
	}
	res, b := fakekit.Send(t, req)
	return res.StatusCode, string(b)
}

// The fake refuses what DHL refuses of a well-formed request, with DHL's
// problem body: another account, a DDP shipment without DD, WY on goods
// not declared, a declaration that does not add up, a product not sold on
// the lane; a call without x-version; and a call without the HTTP Basic
// credentials of a client it knows (the fake's own or one AddClient added,
// each acting for its own account).
func TestFakeRefusals(t *testing.T) {
	t.Parallel()
	f := dhlexpressfake.New(t)
	f.SetChecker(nil) // the broken requests break the document too
	f.AddClient("tenant", "tenant-secret", "960000001")
	ddp := golden(t, "ship_us_eu_ddp.json")
	eu := golden(t, "ship_eu.json")
	for _, tc := range []struct {
		name, body string
		mod        func(*http.Request)
		status     int
		says       string
	}{
		{"as sent", ddp, nil, 201, "shipmentTrackingNumber"},
		{"another account", strings.Replace(ddp, dhlexpressfake.AccountNumber, "123456789", 1), nil, 400, "account number is not found"},
		{"DDP without DD", strings.Replace(ddp, `"serviceCode": "DD"`, `"serviceCode": "II"`, 1), nil, 422, "needs the DD service"},
		{"WY on goods not declared", strings.Replace(eu, `"serviceCode": "SF"`, `"serviceCode": "WY"`, 1), nil, 422, "WY (paperless trade) is for shipments declared"},
		{"a declaration that does not add up", strings.Replace(ddp, `"declaredValue": 260.00`, `"declaredValue": 250.00`, 1), nil, 422, "not the sum of the line items"},
		{"a product not sold", strings.Replace(ddp, `"productCode": "P"`, `"productCode": "N"`, 1), nil, 422, "not available from US to FR"},
		{"no x-version", ddp, func(r *http.Request) { r.Header.Del("x-version") }, 400, "x-version"},
		{"wrong password", ddp, func(r *http.Request) { r.SetBasicAuth(dhlexpressfake.Username, "nope") }, 401, "Invalid credentials"},
		{"an unknown user", ddp, func(r *http.Request) { r.SetBasicAuth("nobody", dhlexpressfake.Password) }, 401, "Invalid credentials"},
		{"no credentials", ddp, func(r *http.Request) { r.Header.Del("Authorization") }, 401, "Invalid credentials"},
		{"a bearer token", ddp, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+dhlexpressfake.Password) }, 401, "Invalid credentials"},
		// A client AddClient added acts for its own account, not the
		// fake's: the operator's account is another's to it.
		{"an added client, its account", strings.Replace(ddp, dhlexpressfake.AccountNumber, "960000001", 1), func(r *http.Request) { r.SetBasicAuth("tenant", "tenant-secret") }, 201, "shipmentTrackingNumber"},
		{"an added client, the fake's account", ddp, func(r *http.Request) { r.SetBasicAuth("tenant", "tenant-secret") }, 400, "account number is not found"},
	} {
		status, body := post(t, f, "/shipments", tc.body, tc.mod)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}
}

// Each request of the fake's flows is held to the document: a field the
// document does not have fails the test that sent it.
func TestFakeChecksTheDocument(t *testing.T) {
	t.Parallel()
	f := dhlexpressfake.New(nil)
	defer f.Close()
	f.SetChecker(nil)
	ok := golden(t, "rate_eu.json")
	if status, body := post(t, f, "/rates", ok, nil); status != 200 {
		t.Fatalf("rates: %d %s", status, body)
	}
	checked := dhlexpressfake.New(nil)
	defer checked.Close()
	post(t, checked, "/rates", strings.Replace(ok, `"nextBusinessDay": true`, `"nextBusinessDay": true, "shipdOnly": 1`, 1), nil)
	if fails := checked.CheckFailures(); len(fails) == 0 || !strings.Contains(fails[0].Error(), "shipdOnly") {
		t.Errorf("check failures %v, want the unknown field", fails)
	}
}
