package uspsfake_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// The adapter's tests show the fake accepts what the adapter sends; these
// show it refuses what USPS would refuse, which is what makes the first
// kind of test worth something.

var now = time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)

func call(t *testing.T, method, target string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, b := fakekit.Send(t, req)
	return res.StatusCode, string(b)
}

// tokens gets an access token and a payment authorization token.
func tokens(t *testing.T, s *uspsfake.Server) (bearer, payment string) {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {uspsfake.ClientID}, "client_secret": {uspsfake.ClientSecret}}
	status, body := call(t, "POST", s.URL()+"/oauth2/v3/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &tok) != nil || tok.AccessToken == "" || tok.ExpiresIn != 28799 {
		t.Fatalf("token: %d %s", status, body)
	}
	roles := `{"roles":[{"roleName":"PAYER","CRID":"` + uspsfake.CRID + `","accountType":"EPS","accountNumber":"` + uspsfake.AccountNumber + `"},
		{"roleName":"LABEL_OWNER","CRID":"` + uspsfake.CRID + `","MID":"` + uspsfake.MID + `","manifestMID":"` + uspsfake.MID + `"}]}`
	status, body = call(t, "POST", s.URL()+"/payments/v3/payment-authorization",
		map[string]string{"Authorization": "Bearer " + tok.AccessToken, "Content-Type": "application/json"}, roles)
	var pay struct {
		Token string `json:"paymentAuthorizationToken"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &pay) != nil || pay.Token == "" {
		t.Fatalf("payment authorization: %d %s", status, body)
	}
	return tok.AccessToken, pay.Token
}

const goodLabel = `{"imageInfo":{"imageType":"PDF","labelType":"4X6LABEL"},
 "toAddress":{"firstName":"Joe","lastName":"Doe","streetAddress":"1100 Wyoming St","city":"St. Louis","state":"MO","ZIPCode":"63118"},
 "fromAddress":{"firm":"Acme","streetAddress":"4120 Bingham Ave","city":"St. Louis","state":"MO","ZIPCode":"63116"},
 "packageDescription":{"mailClass":"USPS_GROUND_ADVANTAGE","rateIndicator":"SP","weightUOM":"lb","weight":1.5,"dimensionsUOM":"in",
  "length":10,"width":8,"height":4,"processingCategory":"MACHINABLE","destinationEntryFacilityType":"NONE","mailingDate":"2026-11-02"}}`

func TestFakeRefusesWhatUSPSRefuses(t *testing.T) {
	t.Parallel()
	s := uspsfake.New(t, uspsfake.WithClock(func() time.Time { return now }))
	bearer, payment := tokens(t, s)
	label := s.URL() + "/labels/v3/label"
	headers := func(mutate func(map[string]string)) map[string]string {
		h := map[string]string{"Authorization": "Bearer " + bearer, "X-Payment-Authorization-Token": payment,
			"Content-Type": "application/json", "X-Idempotency-Key": "0c5e7b4a-3f1d-5a2b-9c8d-7e6f5a4b3c2d"}
		if mutate != nil {
			mutate(h)
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		status int
		detail string
	}{
		{"no bearer", headers(func(h map[string]string) { delete(h, "Authorization") }), goodLabel, 401, "access token"},
		{"unknown bearer", headers(func(h map[string]string) { h["Authorization"] = "Bearer nope" }), goodLabel, 401, "access token"},
		{"no payment token", headers(func(h map[string]string) { delete(h, "X-Payment-Authorization-Token") }), goodLabel, 400, "X-Payment-Authorization-Token"},
		{"stale payment token", headers(func(h map[string]string) { h["X-Payment-Authorization-Token"] = "old" }), goodLabel, 401, "payment authorization"},
		{"no idempotency key", headers(func(h map[string]string) { delete(h, "X-Idempotency-Key") }), goodLabel, 400, "X-Idempotency-Key"},
		{"form body", headers(func(h map[string]string) { h["Content-Type"] = "text/plain" }), goodLabel, 400, "Content-Type"},
		{"weight in ounces", headers(nil), strings.Replace(goodLabel, `"weightUOM":"lb","weight":1.5`, `"weightUOM":"oz","weight":24`, 1), 400, "weightUOM must be lb"},
		{"too heavy", headers(nil), strings.Replace(goodLabel, `"weight":1.5`, `"weight":71`, 1), 400, "weight must be at most 70"},
		{"no height", headers(nil), strings.Replace(goodLabel, `"height":4,`, ``, 1), 400, "height is required"},
		{"PME at SP", headers(nil), strings.Replace(goodLabel, `"mailClass":"USPS_GROUND_ADVANTAGE"`, `"mailClass":"PRIORITY_MAIL_EXPRESS"`, 1), 400, "no price"},
		{"no name", headers(nil), strings.Replace(goodLabel, `"firstName":"Joe","lastName":"Doe",`, ``, 1), 400, "firstName and lastName, or firm"},
		{"ZIP+4 in ZIPCode", headers(nil), strings.Replace(goodLabel, `"ZIPCode":"63118"`, `"ZIPCode":"63118-2628"`, 1), 400, "5-digit"},
		{"mailing date in the past", headers(nil), strings.Replace(goodLabel, `2026-11-02`, `2026-10-01`, 1), 400, "mailingDate"},
		{"unknown property", headers(nil), strings.Replace(goodLabel, `{"imageInfo"`, `{"shipDate":"today","imageInfo"`, 1), 400, "shipDate is not a property"},
	} {
		status, body := call(t, "POST", label, tc.header, tc.body)
		if status != tc.status || !strings.Contains(body, tc.detail) || !strings.Contains(body, `"apiVersion"`) {
			t.Errorf("%s: %d %s; want %d with %q in USPS's error body", tc.name, status, body, tc.status, tc.detail)
		}
	}
	if n := s.LabelCount(); n != 0 {
		t.Fatalf("%d labels sold for refused requests", n)
	}
	status, body := call(t, "POST", label, headers(nil), goodLabel)
	if status != 200 || !strings.HasPrefix(body, "--") {
		t.Fatalf("good label: %d %.200s; want a multipart answer", status, body)
	}

	s.ExpireTokens()
	if status, _ := call(t, "POST", s.URL()+"/shipments/v3/options/search", map[string]string{"Authorization": "Bearer " + bearer, "Content-Type": "application/json"}, `{}`); status != 401 {
		t.Errorf("after ExpireTokens: %d, want 401", status)
	}
}

func TestFakeTokenEndpoint(t *testing.T) {
	t.Parallel()
	s := uspsfake.New(t)
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
	}{
		{"wrong secret", "application/x-www-form-urlencoded", "grant_type=client_credentials&client_id=" + uspsfake.ClientID + "&client_secret=x", 401},
		{"no grant", "application/x-www-form-urlencoded", "client_id=" + uspsfake.ClientID + "&client_secret=" + uspsfake.ClientSecret, 400},
		{"wrong grant", "application/json", `{"grant_type":"password","client_id":"` + uspsfake.ClientID + `","client_secret":"` + uspsfake.ClientSecret + `"}`, 400},
		{"JSON body", "application/json", `{"grant_type":"client_credentials","client_id":"` + uspsfake.ClientID + `","client_secret":"` + uspsfake.ClientSecret + `"}`, 200},
	} {
		status, body := call(t, "POST", s.URL()+"/oauth2/v3/token", map[string]string{"Content-Type": tc.contentType}, tc.body)
		if status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
	}
	if status, _ := call(t, "GET", s.URL()+"/oauth2/v3/token", nil, ""); status != http.StatusMethodNotAllowed {
		t.Errorf("GET token: %d, want 405", status)
	}
	if n := s.TokenRequests(); n != 4 {
		t.Errorf("TokenRequests = %d, want 4 (the GET never reached the endpoint)", n)
	}
}
