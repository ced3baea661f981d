package dhlparceldefake_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// order is a raw order as a client would send it.
func order(t *testing.T, fake *dhlparceldefake.Server, body string, auth func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, fake.URL()+"/parcel/de/shipping/v2/orders?mustEncode=true", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	auth(req)
	res, answer := fakekit.Send(t, req)
	return res.StatusCode, string(answer)
}

func withCredentials(r *http.Request) {
	r.Header.Set("dhl-api-key", dhlparceldefake.APIKey)
	r.SetBasicAuth(dhlparceldefake.Username, dhlparceldefake.Password)
}

const shipment = `{"profile":"STANDARD_GRUPPENPROFIL","shipments":[{"product":"%s","billingNumber":"%s","refNo":"shp_0123456789",` +
	`"shipDate":"2099-01-04","shipper":{"name1":"Shop","addressStreet":"Sträßchensweg","addressHouse":"10","postalCode":"53113","city":"Bonn","country":"DEU"},` +
	`"consignee":{"name1":"Erika","addressStreet":"%s","postalCode":"51147","city":"Köln","country":"DEU"%s},` +
	`"details":{"weight":{"uom":"g","value":500}}}]}`

// What DHL refuses beyond the documents' schema, each with DHL's
// validation message: the fake holds a client to it, and answers the
// documented shapes while doing so (its checker would fail the test).
func TestFakeRefusals(t *testing.T) {
	t.Parallel()
	fake := dhlparceldefake.New(t)
	fill := func(product, billing, street, extra string) string {
		parts := []string{product, billing, street, extra}
		out := shipment
		for _, p := range parts {
			out = strings.Replace(out, "%s", p, 1)
		}
		return out
	}
	for _, tc := range []struct {
		name, body string
		auth       func(*http.Request)
		status     int
		want       string
	}{
		{"no API key", fill("V01PAK", "33333333330102", "Heidestr. 17", ""), func(r *http.Request) {
			r.SetBasicAuth(dhlparceldefake.Username, dhlparceldefake.Password)
		}, 401, "Invalid API key."},
		{"a wrong password", fill("V01PAK", "33333333330102", "Heidestr. 17", ""), func(r *http.Request) {
			r.Header.Set("dhl-api-key", dhlparceldefake.APIKey)
			r.SetBasicAuth(dhlparceldefake.Username, "wrong")
		}, 401, "Unauthorized"},
		{"Kleinpaket on Paket's billing number", fill("V62KP", "33333333330102", "Heidestr. 17", ""), withCredentials, 400, "does not belong to product V62KP"},
		{"another EKP's billing number", fill("V01PAK", "44444444440102", "Heidestr. 17", ""), withCredentials, 400, "not one of your contract"},
		{"a German consignee's phone", fill("V01PAK", "33333333330102", "Heidestr. 17", `,"phone":"+49 221 1"`), withCredentials, 400, "cannot be transmitted"},
		{"an address DHL cannot encode", fill("V01PAK", "33333333330102", "Heidestraße", ""), withCredentials, 400, "not encodable"},
		{"a good order", fill("V01PAK", "33333333330102", "Heidestr. 17", ""), withCredentials, 200, `"shipmentNo":"0034043416`},
	} {
		status, answer := order(t, fake, tc.body, tc.auth)
		if status != tc.status || !strings.Contains(answer, tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, status, answer, tc.status, tc.want)
		}
	}
	if n := fake.Sold(); n != 1 {
		t.Errorf("%d labels sold, want the good order's", n)
	}
}
