package upsfake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// token gets an access token the documented way.
func token(t *testing.T, s *Server) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/security/v1/oauth/token", strings.NewReader("grant_type=client_credentials"))
	req.SetBasicAuth(ClientID, ClientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("x-merchant-id", AccountNumber)
	status, body := send(t, req)
	if status != http.StatusOK {
		t.Fatalf("token: %d %s", status, body)
	}
	var a map[string]string
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if a["expires_in"] != "14400" || a["token_type"] != "Bearer" {
		t.Errorf("token answer %v: want expires_in \"14400\" (a string) and Bearer", a)
	}
	return a["access_token"]
}

func send(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	res, b := fakekit.Send(t, req)
	return res.StatusCode, b
}

func call(t *testing.T, s *Server, tok, method, path, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.URL()+path, rd)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("transId", "0123456789abcdef0123456789abcdef")
	req.Header.Set("transactionSrc", "test")
	return send(t, req)
}

// codes are the error codes of a UPS error body.
func codes(t *testing.T, body []byte) []string {
	t.Helper()
	var e errorEnvelope
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not the UPS error body: %s", body)
	}
	var out []string
	for _, x := range e.Response.Errors {
		out = append(out, x.Code)
	}
	return out
}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	s := New(t)
	for name, tc := range map[string]struct {
		user, pass, ct, body string
		want                 int
	}{
		"wrong secret":       {ClientID, "nope", "application/x-www-form-urlencoded", "grant_type=client_credentials", 401},
		"JSON body":          {ClientID, ClientSecret, "application/json", `{"grant_type":"client_credentials"}`, 400},
		"wrong grant":        {ClientID, ClientSecret, "application/x-www-form-urlencoded", "grant_type=password", 400},
		"no basic auth":      {"", "", "application/x-www-form-urlencoded", "grant_type=client_credentials", 401},
		"documented request": {ClientID, ClientSecret, "application/x-www-form-urlencoded", "grant_type=client_credentials", 200},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/security/v1/oauth/token", strings.NewReader(tc.body))
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		req.Header.Set("Content-Type", tc.ct)
		if got, body := send(t, req); got != tc.want {
			t.Errorf("%s: %d %s, want %d", name, got, body, tc.want)
		}
	}
	if n := s.TokenRequests(); n != 5 {
		t.Errorf("%d token requests counted, want 5", n)
	}
}

func TestTokensExpire(t *testing.T) {
	t.Parallel()
	s := New(t)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s.SetNow(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	tok := token(t, s)
	if status, _ := call(t, s, tok, http.MethodGet, "/api/track/v1/details/1ZA1B2C30300000019", ""); status != 200 {
		t.Fatalf("fresh token refused: %d", status)
	}
	mu.Lock()
	now = now.Add(DefaultTokenTTL)
	mu.Unlock()
	status, body := call(t, s, tok, http.MethodGet, "/api/track/v1/details/1ZA1B2C30300000019", "")
	if status != 401 || !cmp.Equal(codes(t, body), []string{"250002"}) {
		t.Errorf("expired token: %d %s, want 401 250002", status, body)
	}
	tok = token(t, s)
	s.ExpireTokens()
	if status, _ := call(t, s, tok, http.MethodGet, "/api/track/v1/details/1ZA1B2C30300000019", ""); status != 401 {
		t.Errorf("after ExpireTokens: %d, want 401", status)
	}
	if status, _ := call(t, s, "", http.MethodGet, "/api/track/v1/details/1ZA1B2C30300000019", ""); status != 401 {
		t.Errorf("without a token: %d, want 401", status)
	}
}

const goodRate = `{"RateRequest":{"Request":{"RequestOption":"Shop"},"Shipment":{
  "Shipper":{"ShipperNumber":"A1B2C3","Address":{"AddressLine":["2311 York Rd"],"City":"Timonium","StateProvinceCode":"MD","PostalCode":"21093","CountryCode":"US"}},
  "ShipTo":{"Address":{"AddressLine":["1 Main St"],"City":"Austin","StateProvinceCode":"TX","PostalCode":"78701","CountryCode":"US"}},
  "Package":[{"PackagingType":{"Code":"02"},"PackageWeight":{"UnitOfMeasurement":{"Code":"LBS","Description":"Pounds"},"Weight":"2"}}]}}}`

func TestRateChecksTheRequest(t *testing.T) {
	t.Parallel()
	s := New(t)
	tok := token(t, s)
	if status, body := call(t, s, tok, http.MethodPost, "/api/rating/v2409/Shop", goodRate); status != 200 {
		t.Fatalf("documented request refused: %d %s", status, body)
	}
	for name, tc := range map[string]struct {
		path, body string
		want       []string
	}{
		"weight as a number":  {"/api/rating/v2409/Shop", strings.Replace(goodRate, `"Weight":"2"`, `"Weight":2`, 1), []string{codeInvalid}},
		"weight in grams":     {"/api/rating/v2409/Shop", strings.Replace(goodRate, `"Code":"LBS"`, `"Code":"GRM"`, 1), []string{codeInvalid}},
		"package not array":   {"/api/rating/v2409/Shop", strings.Replace(strings.Replace(goodRate, `"Package":[`, `"Package":`, 1), `}}]}}}`, `}}}}}`, 1), []string{codeInvalid}},
		"no address lines":    {"/api/rating/v2409/Shop", strings.Replace(goodRate, `"AddressLine":["1 Main St"],`, ``, 1), []string{codeMissing}},
		"ZIP of 6 digits":     {"/api/rating/v2409/Shop", strings.Replace(goodRate, `78701`, `787010`, 1), []string{codeInvalid}},
		"old version":         {"/api/rating/v1/Shop", goodRate, []string{codeInvalid}},
		"transit without DTI": {"/api/rating/v2409/Shoptimeintransit", goodRate, []string{codeMissing}},
		"other account":       {"/api/rating/v2409/Shop", strings.Replace(goodRate, `"ShipperNumber":"A1B2C3"`, `"ShipperNumber":"ZZZZZZ"`, 1), []string{"111057"}},
		"not JSON":            {"/api/rating/v2409/Shop", `{"RateRequest":`, []string{codeNotWellFormed}},
	} {
		status, body := call(t, s, tok, http.MethodPost, tc.path, tc.body)
		if status != 400 {
			t.Errorf("%s: %d %s, want 400", name, status, body)
			continue
		}
		if diff := cmp.Diff(tc.want, codes(t, body)); diff != "" {
			t.Errorf("%s: codes (-want +got):\n%s\n%s", name, diff, body)
		}
	}
	if got := s.Requests(OpRate); got != 10 {
		t.Errorf("%d rate requests counted, want 10", got)
	}
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	s := New(t)
	tok := token(t, s)
	s.FailNext(OpRate, http.StatusTooManyRequests, BodyRateLimited)
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/api/rating/v2409/Shop", strings.NewReader(goodRate))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" {
		t.Errorf("got %d with Retry-After %q, want 429 with 7", res.StatusCode, res.Header.Get("Retry-After"))
	}
	// One failure per FailNext: the next call succeeds.
	if status, _ := call(t, s, tok, http.MethodPost, "/api/rating/v2409/Shop", goodRate); status != 200 {
		t.Errorf("second call: %d, want 200", status)
	}
}

func TestTrackingNumberCheckDigit(t *testing.T) {
	t.Parallel()
	// A real UPS number: shipper 81WV38, service 03, package 1688689,
	// check digit 7.
	if got := trackingNumber("81WV38", "03", 1688689); got != "1Z81WV380316886897" {
		t.Errorf("trackingNumber = %s, want 1Z81WV380316886897", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s := New(t)
	tok := token(t, s)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			status, body := call(t, s, tok, http.MethodPost, "/api/rating/v2409/Shop", goodRate)
			if status != 200 {
				t.Errorf("%d %s", status, body)
			}
			q := url.Values{"locale": {"en_US"}}
			call(t, s, tok, http.MethodGet, "/api/track/v1/details/1ZA1B2C30300000019?"+q.Encode(), "")
		})
	}
	wg.Wait()
	if diff := cmp.Diff([]int{16, 16}, []int{s.Requests(OpRate), s.Requests(OpTrack)}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
