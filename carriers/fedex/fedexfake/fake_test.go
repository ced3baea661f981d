package fedexfake_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// token gets a token from the fake the documented way.
func token(t *testing.T, s *fedexfake.Server) string {
	t.Helper()
	res, err := http.PostForm(s.URL()+fedexfake.PathToken, url.Values{
		"grant_type": {"client_credentials"}, "client_id": {fedexfake.ClientID}, "client_secret": {fedexfake.ClientSecret},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
		t.Fatalf("token: %d, %v", res.StatusCode, err)
	}
	if body.TokenType != "bearer" || body.ExpiresIn != 3600 || body.AccessToken == "" {
		t.Fatalf("token answer %+v", body)
	}
	return body.AccessToken
}

type answer struct {
	status int
	codes  []string
	body   string
}

func call(t *testing.T, s *fedexfake.Server, method, path, tok string, body string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, raw := fakekit.Send(t, req)
	a := answer{status: res.StatusCode, body: string(raw)}
	var eb struct {
		Errors []struct{ Code string } `json:"errors"`
	}
	if json.Unmarshal(raw, &eb) == nil {
		for _, e := range eb.Errors {
			a.codes = append(a.codes, e.Code)
		}
	}
	return a
}

const validRate = `{"accountNumber":{"value":"510087020"},"requestedShipment":{
	"shipper":{"address":{"postalCode":"94104","stateOrProvinceCode":"CA","countryCode":"US"}},
	"recipient":{"address":{"postalCode":"10118","stateOrProvinceCode":"NY","countryCode":"US"}},
	"pickupType":"DROPOFF_AT_FEDEX_LOCATION","rateRequestType":["ACCOUNT"],
	"requestedPackageLineItems":[{"weight":{"units":"LB","value":1.5}}]}}`

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	token(t, s)
	res, err := http.PostForm(s.URL()+fedexfake.PathToken, url.Values{
		"grant_type": {"client_credentials"}, "client_id": {fedexfake.ClientID}, "client_secret": {"wrong"},
	})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("wrong secret: %d, want 401", res.StatusCode)
	}
	// Credentials as JSON instead of a form are refused.
	a := call(t, s, http.MethodPost, fedexfake.PathToken, "", `{"grant_type":"client_credentials"}`, nil)
	if a.status != 400 {
		t.Errorf("JSON token request: %d, want 400", a.status)
	}
	if n := s.TokenRequests(); n != 3 {
		t.Errorf("TokenRequests = %d, want 3", n)
	}
}

func TestAPIRequiresAValidToken(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	for name, tok := range map[string]string{"none": "", "unknown": "forged"} {
		if a := call(t, s, http.MethodPost, fedexfake.PathRate, tok, validRate, nil); a.status != 401 || !cmp.Equal(a.codes, []string{"NOT.AUTHORIZED.ERROR"}) {
			t.Errorf("%s token: %d %v, want 401 NOT.AUTHORIZED.ERROR", name, a.status, a.codes)
		}
	}
	tok := token(t, s)
	if a := call(t, s, http.MethodPost, fedexfake.PathRate, tok, validRate, nil); a.status != 200 {
		t.Fatalf("valid request: %d %s", a.status, a.body)
	}
	s.ExpireTokens()
	if a := call(t, s, http.MethodPost, fedexfake.PathRate, tok, validRate, nil); a.status != 401 {
		t.Errorf("after ExpireTokens: %d, want 401", a.status)
	}
	s.SetTokenTTL(0)
	if a := call(t, s, http.MethodPost, fedexfake.PathRate, token2(t, s), validRate, nil); a.status != 401 {
		t.Errorf("token with a zero lifetime: %d, want 401", a.status)
	}
	if n := s.Requests(fedexfake.OpRate); n != 5 {
		t.Errorf("Requests(rate) = %d, want 5", n)
	}
}

// token2 fetches a token without checking its lifetime.
func token2(t *testing.T, s *fedexfake.Server) string {
	t.Helper()
	res, err := http.PostForm(s.URL()+fedexfake.PathToken, url.Values{
		"grant_type": {"client_credentials"}, "client_id": {fedexfake.ClientID}, "client_secret": {fedexfake.ClientSecret},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(res.Body).Decode(&body)
	return body.AccessToken
}

func TestRateValidation(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	tok := token(t, s)
	tests := []struct {
		name, old, new, wantCode string
	}{
		{"weight as a string", `"value":1.5`, `"value":"1.5"`, "INVALID.INPUT.EXCEPTION"},
		{"weight in ounces", `"units":"LB"`, `"units":"OZ"`, "INVALID.INPUT.EXCEPTION"},
		{"no pickup type", `"pickupType":"DROPOFF_AT_FEDEX_LOCATION",`, ``, "INVALID.INPUT.EXCEPTION"},
		{"misspelt field (the Ship API's name)", `"pickupType"`, `"shipDatestamp":"2026-03-02","pickupType"`, "INVALID.INPUT.EXCEPTION"},
		{"street in a rate address", `"postalCode":"94104"`, `"streetLines":["1 Main St"],"postalCode":"94104"`, "INVALID.INPUT.EXCEPTION"},
		{"fractional dimensions", `"weight":{"units":"LB","value":1.5}`, `"weight":{"units":"LB","value":1.5},"dimensions":{"length":10.5,"width":8,"height":4,"units":"IN"}`, "INVALID.INPUT.EXCEPTION"},
		{"US address without state", `"stateOrProvinceCode":"NY",`, ``, "INVALID.INPUT.EXCEPTION"},
		{"other account", `"510087020"`, `"123456789"`, "ACCOUNTNUMBER.REGISTRATION.REQUIRED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := strings.Replace(validRate, tt.old, tt.new, 1)
			if body == validRate {
				t.Fatalf("%q is not in the valid request", tt.old)
			}
			a := call(t, s, http.MethodPost, fedexfake.PathRate, tok, body, nil)
			if a.status != 400 || len(a.codes) == 0 || a.codes[0] != tt.wantCode {
				t.Errorf("%d %v %s; want 400 %s", a.status, a.codes, a.body, tt.wantCode)
			}
		})
	}
	if a := call(t, s, http.MethodGet, fedexfake.PathRate, tok, "", nil); a.status != 405 {
		t.Errorf("GET rate: %d, want 405", a.status)
	}
	if a := call(t, s, http.MethodPost, "/rate/v2/rates", tok, validRate, nil); a.status != 404 || !cmp.Equal(a.codes, []string{"NOT.FOUND.ERROR"}) {
		t.Errorf("unknown path: %d %v, want 404 NOT.FOUND.ERROR", a.status, a.codes)
	}
}

const validShip = `{"labelResponseOptions":"LABEL","accountNumber":{"value":"510087020"},"requestedShipment":{
	"shipper":{"address":{"streetLines":["417 Montgomery St"],"city":"San Francisco","stateOrProvinceCode":"CA","postalCode":"94104","countryCode":"US"},
		"contact":{"personName":"Ada","phoneNumber":"4155550100"}},
	"recipients":[{"address":{"streetLines":["350 5th Ave"],"city":"New York","stateOrProvinceCode":"NY","postalCode":"10118","countryCode":"US"},
		"contact":{"personName":"Grace","phoneNumber":"2125550199"}}],
	"pickupType":"DROPOFF_AT_FEDEX_LOCATION","serviceType":"FEDEX_GROUND","packagingType":"YOUR_PACKAGING","totalWeight":1.5,
	"shippingChargesPayment":{"paymentType":"SENDER"},"labelSpecification":{"imageType":"PDF","labelStockType":"PAPER_4X6"},
	"requestedPackageLineItems":[{"weight":{"units":"LB","value":1.5}}]}}`

func TestShipValidationAndConcurrency(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	tok := token(t, s)
	tx := map[string]string{"x-customer-transaction-id": "shipd-shp_1"}
	for name, tt := range map[string]struct {
		old, new string
		header   map[string]string
	}{
		"no transaction id":      {`"PDF"`, `"PDF"`, nil},
		"thermal stock for PDF":  {`"PAPER_4X6"`, `"STOCK_4X6"`, tx},
		"phone with punctuation": {`"2125550199"`, `"212-555-0199"`, tx},
		"unknown service":        {`"FEDEX_GROUND"`, `"FEDEX_TELEPORT"`, tx},
		"no street":              {`["350 5th Ave"]`, `[]`, tx},
	} {
		a := call(t, s, http.MethodPost, fedexfake.PathShip, tok, strings.Replace(validShip, tt.old, tt.new, 1), tt.header)
		if a.status != 400 {
			t.Errorf("%s: %d %s, want 400", name, a.status, a.body)
		}
	}

	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			a := call(t, s, http.MethodPost, fedexfake.PathShip, tok, validShip, tx)
			var out struct {
				CustomerTransactionID string `json:"customerTransactionId"`
				Output                struct {
					TransactionShipments []struct {
						MasterTrackingNumber string `json:"masterTrackingNumber"`
					} `json:"transactionShipments"`
				} `json:"output"`
			}
			if err := json.Unmarshal([]byte(a.body), &out); err != nil || a.status != 200 || len(out.Output.TransactionShipments) != 1 {
				t.Errorf("ship: %d %v", a.status, err)
				return
			}
			if out.CustomerTransactionID != "shipd-shp_1" {
				t.Errorf("customerTransactionId %q not echoed", out.CustomerTransactionID)
			}
			mu.Lock()
			defer mu.Unlock()
			tn := out.Output.TransactionShipments[0].MasterTrackingNumber
			if seen[tn] {
				t.Errorf("tracking number %s issued twice", tn)
			}
			seen[tn] = true
		})
	}
	wg.Wait()
}

func TestTrackValidation(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	tok := token(t, s)
	a := call(t, s, http.MethodPost, fedexfake.PathTrack, tok, `{"includeDetailedScans":true,"trackingInfo":[{"trackingNumberInfo":{"trackingNumber":""}}]}`, nil)
	if a.status != 400 || !cmp.Equal(a.codes, []string{"TRACKING.TRACKINGNUMBER.EMPTY"}) {
		t.Errorf("empty number: %d %v, want the documented 400 TRACKING.TRACKINGNUMBER.EMPTY", a.status, a.codes)
	}
	a = call(t, s, http.MethodPost, fedexfake.PathTrack, tok, `{"trackingInfo":[{"trackingNumberInfo":{"trackingNumber":"1"}}]}`, nil)
	if a.status != 400 {
		t.Errorf("without includeDetailedScans: %d, want 400", a.status)
	}
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	s := fedexfake.New(t)
	tok := token(t, s)
	s.FailNext(fedexfake.OpRate, 429, fedexfake.ErrorBody("RATE.LIMIT", "slow down"))
	req, _ := http.NewRequest(http.MethodPost, s.URL()+fedexfake.PathRate, strings.NewReader(validRate))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" {
		t.Errorf("failed call: %d, Retry-After %q; want 429 and 7", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if a := call(t, s, http.MethodPost, fedexfake.PathRate, tok, validRate, nil); a.status != 200 {
		t.Errorf("the call after: %d, want 200 (one failure only)", a.status)
	}
	if got := string(s.LastRequestBody(fedexfake.OpRate)); got != validRate {
		t.Errorf("LastRequestBody = %q", got)
	}
}
