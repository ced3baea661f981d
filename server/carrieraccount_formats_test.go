package server_test

import (
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// Each credential field's form is checked at the door, before the carrier
// is asked: a line break in an account number (a header or a form would
// carry it), a CRID or an account number that is not digits, a MID of
// another length are 422 invalid_field naming the field; nothing reaches
// the carrier.
func TestCarrierAccountCredentialForms(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t)
	usps := func(field, value string) map[string]any {
		creds := map[string]any{"clientId": uspsfake.ClientID, "clientSecret": uspsfake.ClientSecret,
			"accountNumber": uspsfake.AccountNumber, "crid": uspsfake.CRID, "mid": uspsfake.MID}
		creds[field] = value
		return map[string]any{"carrier": "USPS", "credentials": creds}
	}
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a UPS shipper number with a line break", map[string]any{"carrier": "UPS", "credentials": map[string]any{
			"clientId": upsfake.ClientID, "clientSecret": upsfake.ClientSecret, "accountNumber": upsfake.AccountNumber + "\r\nX-Injected: 1"}},
			"credentials.accountNumber"},
		{"a UPS shipper number of 7 characters", map[string]any{"carrier": "UPS", "credentials": map[string]any{
			"clientId": upsfake.ClientID, "clientSecret": upsfake.ClientSecret, "accountNumber": "A1B2C3D"}}, "credentials.accountNumber"},
		{"a USPS CRID of letters", usps("crid", "CRID-ONE"), "credentials.crid"},
		{"a USPS MID of 7 digits", usps("mid", "1234567"), "credentials.mid"},
		{"a USPS account number of letters", usps("accountNumber", "EPS-ONE"), "credentials.accountNumber"},
	} {
		m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, c.body), http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != c.field {
			t.Errorf("%s: field %v, want %s", c.name, m["field"], c.field)
		}
	}
	if n := f.ups.TokenRequests() + f.usps.TokenRequests(); n != 0 {
		t.Errorf("%d token requests reached the carriers", n)
	}
}
