package fedex

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

func TestRateFailures(t *testing.T) {
	t.Parallel()
	documented400 := fedexfake.ErrorBody("ACCOUNTNUMBER.REGISTRATION.REQUIRED",
		"Please enter a valid 9-digit FedEx account number or register for a new FedEx account number.")
	tests := []struct {
		name           string
		failure        fedexfake.Failure
		wantKind       error
		wantStatus     int
		wantCode       string
		wantMsg        string
		wantRetryAfter time.Duration
	}{
		{"429 with Retry-After", fedexfake.Failure{Status: 429, RetryAfter: "7", Body: fedexfake.ErrorBody("RATE.LIMIT.EXCEEDED", "Too many requests.")},
			carriers.ErrUnavailable, 429, "RATE.LIMIT.EXCEEDED", "Too many requests.", 7 * time.Second},
		{"429 without a body", fedexfake.Failure{Status: 429}, carriers.ErrUnavailable, 429, "", "HTTP 429 without a FedEx error body", 0},
		{"503", fedexfake.Failure{Status: 503, RetryAfter: "30", Body: fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable.")},
			carriers.ErrUnavailable, 503, "SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable.", 30 * time.Second},
		{"500", fedexfake.Failure{Status: 500, Body: fedexfake.ErrorBody("INTERNAL.SERVER.ERROR", "We encountered an unexpected error.")},
			carriers.ErrFailed, 500, "INTERNAL.SERVER.ERROR", "We encountered an unexpected error.", 0},
		{"HTML error page", fedexfake.Failure{Status: 502, Body: fedexfake.BodyHTML, ContentType: "text/html"},
			carriers.ErrFailed, 502, "", "HTTP 502 without a FedEx error body", 0},
		{"HTML page with 200", fedexfake.Failure{Status: 200, Body: fedexfake.BodyHTML, ContentType: "text/html"},
			carriers.ErrFailed, 200, "", "the rate answer does not parse", 0},
		{"malformed JSON", fedexfake.Failure{Status: 200, Body: fedexfake.BodyMalformed}, carriers.ErrFailed, 200, "", "does not parse", 0},
		{"truncated body", fedexfake.Failure{Status: 200, Body: fedexfake.BodyTruncated}, carriers.ErrFailed, 200, "", "does not parse", 0},
		{"empty body", fedexfake.Failure{Status: 200}, carriers.ErrFailed, 200, "", "does not parse", 0},
		{"no output", fedexfake.Failure{Status: 200, Body: `{"transactionId":"1"}`}, carriers.ErrFailed, 200, "", "no output", 0},
		{"charge as a word", fedexfake.Failure{Status: 200, Body: rateBody(`"twelve"`, `"USD"`)}, carriers.ErrFailed, 200, "", "not a plain decimal", 0},
		{"charge as an object", fedexfake.Failure{Status: 200, Body: rateBody(`{"amount":12}`, `"USD"`)}, carriers.ErrFailed, 200, "", "does not parse", 0},
		{"negative charge", fedexfake.Failure{Status: 200, Body: rateBody(`-1.00`, `"USD"`)}, carriers.ErrFailed, 200, "", "not a plain decimal", 0},
		{"charge missing", fedexfake.Failure{Status: 200, Body: rateBody(`null`, `"USD"`)}, carriers.ErrFailed, 200, "", "amount is missing", 0},
		{"currency missing", fedexfake.Failure{Status: 200, Body: rateBody(`12.34`, `""`)}, carriers.ErrFailed, 200, "", "no currency", 0},
		{"service type as a number", fedexfake.Failure{Status: 200, Body: `{"output":{"rateReplyDetails":[{"serviceType":7}]}}`}, carriers.ErrFailed, 200, "", "does not parse", 0},
		{"documented 400", fedexfake.Failure{Status: 400, Body: documented400},
			carriers.ErrRejected, 400, "ACCOUNTNUMBER.REGISTRATION.REQUIRED", "Please enter a valid 9-digit FedEx account number or register for a new FedEx account number.", 0},
		{"404", fedexfake.Failure{Status: 404, Body: fedexfake.ErrorBody("NOT.FOUND.ERROR", "The resource you requested is no longer available.")},
			carriers.ErrRejected, 404, "NOT.FOUND.ERROR", "The resource you requested is no longer available.", 0},
		{"403", fedexfake.Failure{Status: 403, Body: fedexfake.ErrorBody("FORBIDDEN.ERROR", "We could not authorize your credentials.")},
			carriers.ErrFailed, 403, "FORBIDDEN.ERROR", "We could not authorize your credentials.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake := newTestCarrier(t)
			fake.Fail(fedexfake.OpRate, tt.failure)
			rates, err := c.Rates(context.Background(), domestic())
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("Rates = %v, %v; want %v", rates, err, tt.wantKind)
			}
			ce := asCarrierError(t, err)
			if ce.Carrier != "FedEx" || ce.Operation != "rate" || ce.HTTPStatus != tt.wantStatus || ce.Code != tt.wantCode ||
				ce.RetryAfter != tt.wantRetryAfter || !strings.Contains(ce.Message, tt.wantMsg) {
				t.Errorf("error = %+v\nwant status %d, code %q, message containing %q, RetryAfter %v",
					ce, tt.wantStatus, tt.wantCode, tt.wantMsg, tt.wantRetryAfter)
			}
		})
	}
}

// rateBody is a one-service rate answer with the given JSON for
// totalNetCharge and currency.
func rateBody(charge, currency string) string {
	return `{"transactionId":"1","output":{"rateReplyDetails":[{"serviceType":"FEDEX_GROUND","ratedShipmentDetails":[` +
		`{"rateType":"ACCOUNT","totalNetCharge":` + charge + `,"currency":` + currency + `,"shipmentRateDetail":{"currency":` + currency + `}}]}]}}`
}

func TestBuyFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		wantKind error
		wantMsg  string
	}{
		{"no piece", `{"output":{"transactionShipments":[{"masterTrackingNumber":"794600000001","pieceResponses":[]}]}}`, carriers.ErrFailed, "no piece response"},
		{"no tracking number", `{"output":{"transactionShipments":[{"pieceResponses":[{"packageDocuments":[{"contentType":"LABEL","docType":"PDF","encodedLabel":"JVBERi0xLjQK"}]}]}]}}`,
			carriers.ErrFailed, "no tracking number"},
		{"no label", `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794600000001","packageDocuments":[]}]}]}}`, carriers.ErrFailed, "no label image"},
		{"URL only", `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794600000001","packageDocuments":[{"contentType":"LABEL","url":"https://x"}]}]}]}}`,
			carriers.ErrFailed, "no label image"},
		{"not base64", `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794600000001","packageDocuments":[{"contentType":"LABEL","encodedLabel":"%%%"}]}]}]}}`,
			carriers.ErrFailed, "not valid base64"},
		{"not a PDF", `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794600000001","packageDocuments":[{"contentType":"LABEL","encodedLabel":"R0lGODlhAQABAAAAACw="}]}]}]}}`,
			carriers.ErrFailed, "not a PDF"},
		{"ZPL label", `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794600000001","packageDocuments":[{"contentType":"LABEL","docType":"ZPLII","encodedLabel":"XlhB"}]}]}]}}`,
			carriers.ErrFailed, "not PDF"},
		{"wrong types", `{"output":{"transactionShipments":{"pieceResponses":1}}}`, carriers.ErrFailed, "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake := newTestCarrier(t)
			fake.FailNext(fedexfake.OpShip, 200, tt.body)
			label, err := c.Buy(context.Background(), buyRequest("shp_broken", domestic(), "Ground"))
			if !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Buy = %+v, %v; want %v mentioning %q", label, err, tt.wantKind, tt.wantMsg)
			}
		})
	}
	t.Run("503 defers the purchase", func(t *testing.T) {
		t.Parallel()
		c, fake := newTestCarrier(t)
		fake.FailNext(fedexfake.OpShip, 503, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable."))
		if _, err := c.Buy(context.Background(), buyRequest("shp_503", domestic(), "Ground")); !errors.Is(err, carriers.ErrUnavailable) {
			t.Errorf("error = %v, want ErrUnavailable", err)
		}
	})
}

func TestTransportErrorIsUnavailable(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Rates(context.Background(), domestic()); err != nil {
		t.Fatal(err) // a token is cached now
	}
	fake.Close()
	_, err := c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("error = %v, want ErrUnavailable", err)
	}
	if ce := asCarrierError(t, err); ce.Message != "FedEx could not be reached (connection refused)" || ce.HTTPStatus != 0 {
		t.Errorf("error = %+v", ce)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == tokenPath {
			_, _ = io.WriteString(w, `{"access_token":"tok","token_type":"bearer","expires_in":3600}`)
			return
		}
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c, err := New(Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "123456789", BaseURL: srv.URL,
		HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Track(context.Background(), "794600000001")
	if !errors.Is(err, carriers.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("error = %v, want ErrUnavailable for a timeout", err)
	}
}

func TestOversizedAnswerIsFailed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == tokenPath {
			_, _ = io.WriteString(w, `{"access_token":"tok","token_type":"bearer","expires_in":3600}`)
			return
		}
		// An endless body: the adapter must stop reading at its limit.
		_, _ = io.WriteString(w, `{"output":{"rateReplyDetails":[`)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for range (carriers.MaxAnswerBytes / len(chunk)) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "123456789", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "larger than 10 MiB") {
		t.Errorf("error = %v, want ErrFailed for an answer over 10 MiB", err)
	}
}

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body, code, msg string
		ok              bool
	}{
		{`{"transactionId":"624deea6","errors":[{"code":"NOT.FOUND.ERROR","message":"The resource you requested is no longer available."}]}`,
			"NOT.FOUND.ERROR", "The resource you requested is no longer available.", true},
		{`{"errors":[{"code":"A","message":"first"},{"code":"B","message":"second"}]}`, "A", "first; second", true},
		{`{"errors":[{"code":"ONLY.CODE"}]}`, "ONLY.CODE", "ONLY.CODE", true},
		{`{"errors":[]}`, "", "", false},
		{`{"errors":"nope"}`, "", "", false},
		{`<html>`, "", "", false},
		{``, "", "", false},
	} {
		code, msg, ok := parseErrorBody([]byte(tt.body))
		if code != tt.code || msg != tt.msg || ok != tt.ok {
			t.Errorf("parseErrorBody(%s) = %q, %q, %v; want %q, %q, %v", tt.body, code, msg, ok, tt.code, tt.msg, tt.ok)
		}
	}
}
