package server_test

// The sandbox is as strict as the carriers: test mode refuses the addresses
// and the purchases live mode refuses, so that an integration tested in the
// sandbox works live.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func withAddressField(side, key, value string) func(m map[string]any) {
	return func(m map[string]any) { m[side].(map[string]any)[key] = value }
}

func TestSandboxRefusesBadAddresses(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	cases := []struct {
		name  string
		mod   func(m map[string]any)
		field string
		says  string // a part of the message
	}{
		{"letters", withAddressField("toAddress", "zip", "ABCDE"), "toAddress.zip", "5 digits or ZIP+4"},
		{"one digit", withAddressField("toAddress", "zip", "1"), "toAddress.zip", "5 digits or ZIP+4"},
		{"above the highest", withAddressField("toAddress", "zip", "99999"), "toAddress.zip", "not a ZIP code in use"},
		{"sender's zip", withAddressField("fromAddress", "zip", "ABCDE"), "fromAddress.zip", "5 digits or ZIP+4"},
		{"unknown state", withAddressField("toAddress", "state", "ZZ"), "toAddress.state", "not a US state or territory code"},
		{"state name", withAddressField("toAddress", "state", "New York"), "toAddress.state", "NY for New York"},
		{"Canadian postal code", func(m map[string]any) {
			withInternational(true)(m)
			m["toAddress"].(map[string]any)["zip"] = "12345"
		}, "toAddress.zip", "A9A 9A9"},
	}
	for _, mode := range []struct{ name, token string }{{"test", b.token}, {"live", live}} {
		for _, c := range cases {
			for _, path := range []string{"/api/v1/labels/quote", "/api/v1/labels/create"} {
				body := liveBody(c.mod)
				m := wantError(t, b.do("POST", path, mode.token, body), http.StatusUnprocessableEntity, "invalid_field")
				if m["field"] != c.field || !strings.Contains(m["error"].(string), c.says) {
					t.Errorf("%s %s, %s: field %v, error %q; want field %s saying %q", mode.name, path, c.name, m["field"], m["error"], c.field, c.says)
				}
			}
		}
	}
	var list shipmentList
	b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("shipments stored for refused addresses: %+v", list.Data)
	}
}

// TestSandboxAcceptsWhatCarriersTake: ZIP+4, a territory, a state in lower
// case (stored and shown upper case), and the no-rates trigger ZIP in test mode.
func TestSandboxAcceptsWhatCarriersTake(t *testing.T) {
	t.Parallel()
	b := setup(t, withSandbox(0))
	for _, mod := range []func(m map[string]any){
		withAddressField("toAddress", "zip", "20500-0003"),
		func(m map[string]any) {
			withAddressField("toAddress", "state", "PR")(m)
			withAddressField("toAddress", "zip", "00901")(m)
		},
	} {
		if rates := quoteRates(t, b, b.token, liveBody(mod)); len(rates) == 0 {
			t.Errorf("no rates for %v", liveBody(mod)["toAddress"])
		}
	}
	sh := createLabel(t, b, b.token, liveBody(withAddressField("toAddress", "state", "dc")))
	if got := sh.ToAddress["state"]; got != "DC" {
		t.Errorf("state shown as %v, want DC", got)
	}
	// The trigger is no ZIP code in use, yet it still triggers (not invalid_field).
	wantError(t, b.do("POST", "/api/v1/labels/quote", b.token, liveBody(withAddressField("toAddress", "zip", "00000"))), http.StatusUnprocessableEntity, "no_rates")
}

// TestEnumsIgnoreCase: enum inputs are matched in any case, as carrier and
// service names are, and shown in the contract's spelling.
func TestEnumsIgnoreCase(t *testing.T) {
	t.Parallel()
	b := setup(t, withSandbox(0))
	sh := createLabel(t, b, b.token, liveBody(withField("serviceCategory", "EXPRESS")))
	if sh.ServiceCategory != "express" {
		t.Errorf("serviceCategory %q, want express", sh.ServiceCategory)
	}
	intl := liveBody(withInternational(true), func(m map[string]any) {
		customs := m["customs"].(map[string]any)
		customs["contentsType"] = "Merchandise"
		customs["nonDeliveryOption"] = "ABANDON"
	})
	if rates := quoteRates(t, b, b.token, intl); len(rates) == 0 {
		t.Error("no rates for an international shipment with customs in capitals")
	}
	sh = createLabel(t, b, b.token, intl)
	if sh.Customs["contentsType"] != "merchandise" || sh.Customs["nonDeliveryOption"] != "abandon" {
		t.Errorf("customs shown as %v, want the contract's spelling", sh.Customs)
	}
	waitForStatus(t, b, b.token, sh.ID, "purchased")
	upper, lower := listLabels(t, b, b.token, "?status=PURCHASED"), listLabels(t, b, b.token, "?status=purchased")
	if diff := cmp.Diff(shipmentIDs(lower.Data), shipmentIDs(upper.Data)); diff != "" || len(lower.Data) == 0 {
		t.Errorf("?status=PURCHASED lists (-purchased +PURCHASED):\n%s (%d purchased)", diff, len(lower.Data))
	}
	// A value that is no member in any case is still refused.
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, liveBody(withField("serviceCategory", "fastest"))), http.StatusUnprocessableEntity, "invalid_field")
}

// TestTestModeAppliesCarrierRequirements: the sandbox applies the live
// carriers' required fields (carriers/requirements.go).
func TestTestModeAppliesCarrierRequirements(t *testing.T) {
	t.Parallel()
	b := setup(t, withSandbox(0))

	// A quote offers FedEx's rates, each needing the phone numbers
	// (missingFields); carrierErrors says nothing: FedEx did quote.
	q := quoteOf(t, b, b.token, liveBody(withoutPhones))
	fedex := 0
	for _, r := range q.Rates {
		want := []string{}
		if r.Carrier == "FedEx" {
			fedex++
			want = []string{"fromAddress.phone", "toAddress.phone"}
		}
		if d := cmp.Diff(want, r.MissingFields); d != "" {
			t.Errorf("%s %s: missingFields (-want +got):\n%s", r.Carrier, r.Service, d)
		}
	}
	if fedex == 0 || len(q.CarrierErrors) != 0 {
		t.Errorf("%d FedEx rates, carrierErrors %+v; want FedEx's rates and no error", fedex, q.CarrierErrors)
	}

	m := wantError(t, b.do("POST", "/api/v1/labels/create", b.token, liveBody(withoutPhones, withField("carrier", "fedex"))), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "fromAddress.phone" {
		t.Errorf("field %v, want fromAddress.phone", m["field"])
	}

	// Without a carrier named, the cheapest buyable rate is bought.
	sh := createLabel(t, b, b.token, liveBody(withoutPhones))
	if cheapest := cheapestBuyable(t, q.Rates); sh.Carrier == "FedEx" || sh.Carrier != cheapest.Carrier || sh.Service != cheapest.Service {
		t.Errorf("bought %s %s, want the quote's cheapest that can be bought %+v", sh.Carrier, sh.Service, cheapest)
	}

	// With the phone numbers FedEx sells.
	if sh := createLabel(t, b, b.token, liveBody(withField("carrier", "FedEx"))); sh.Carrier != "FedEx" {
		t.Errorf("bought %s, want FedEx", sh.Carrier)
	}
}
