package usps

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// TestErrorClassification scripts USPS answers for a rate request and
// checks each becomes the documented kind of *carriers.Error, never a panic.
func TestErrorClassification(t *testing.T) {
	t.Parallel()
	validation := uspsfake.ErrorBody("/shipments/v3", 400, "Bad Request", "0001", "destinationZIPCode is invalid", "destinationZIPCode")
	html := "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
	for _, tc := range []struct {
		name    string
		failure uspsfake.Failure
		want    carriers.Error // Carrier, Operation and Kind always; the rest when set
	}{
		{"429 with Retry-After", uspsfake.Failure{Status: 429, Body: `{"error":{"code":"429","message":"Too Many Requests"}}`, Header: http.Header{"Retry-After": {"7"}}},
			carriers.Error{HTTPStatus: 429, Code: "429", Message: "Too Many Requests", RetryAfter: 7 * time.Second, Kind: carriers.ErrUnavailable}},
		{"503", uspsfake.Failure{Status: 503, Body: `{"error":{"code":"503","message":"Service is unavailable."}}`},
			carriers.Error{HTTPStatus: 503, Code: "503", Message: "Service is unavailable.", Kind: carriers.ErrUnavailable}},
		{"503 with an HTTP-date Retry-After", uspsfake.Failure{Status: 503, Header: http.Header{"Retry-After": {testNow.Add(90 * time.Second).Format(http.TimeFormat)}}},
			carriers.Error{HTTPStatus: 503, Message: "HTTP 503 Service Unavailable", RetryAfter: 90 * time.Second, Kind: carriers.ErrUnavailable}},
		{"500", uspsfake.Failure{Status: 500, Body: `{"error":{"code":"500","message":"Internal error"}}`},
			carriers.Error{HTTPStatus: 500, Code: "500", Message: "Internal error", Kind: carriers.ErrFailed}},
		{"HTML error page", uspsfake.Failure{Status: 502, Body: html, ContentType: "text/html"},
			carriers.Error{HTTPStatus: 502, Message: "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>", Kind: carriers.ErrFailed}},
		{"documented 400", uspsfake.Failure{Status: 400, Body: validation},
			carriers.Error{HTTPStatus: 400, Code: "0001", Message: "destinationZIPCode is invalid", Kind: carriers.ErrRejected}},
		{"403", uspsfake.Failure{Status: 403, Body: `{"error":{"code":"403","message":"Access is denied."}}`},
			carriers.Error{HTTPStatus: 403, Code: "403", Message: "the carrier denied access with these credentials: Access is denied.", Kind: carriers.ErrFailed}},
		{"malformed JSON", uspsfake.Failure{Status: 200, Body: `{"pricingOptions": [`}, carriers.Error{Kind: carriers.ErrFailed}},
		{"HTML with 200", uspsfake.Failure{Status: 200, Body: html, ContentType: "text/html"}, carriers.Error{Kind: carriers.ErrFailed}},
		{"wrong types", uspsfake.Failure{Status: 200, Body: `{"pricingOptions":"many"}`}, carriers.Error{Kind: carriers.ErrFailed}},
		{"price not a number", uspsfake.Failure{Status: 200, Body: `{"pricingOptions":[{"shippingOptions":[{"mailClass":"PRIORITY_MAIL","rateOptions":[{"totalBasePrice":"ten"}]}]}]}`},
			carriers.Error{Kind: carriers.ErrFailed}},
		{"price missing", uspsfake.Failure{Status: 200, Body: `{"pricingOptions":[{"shippingOptions":[{"mailClass":"PRIORITY_MAIL","rateOptions":[{"rates":[]}]}]}]}`},
			carriers.Error{Kind: carriers.ErrFailed}},
		{"trailing garbage", uspsfake.Failure{Status: 200, Body: `{"pricingOptions":[]} {}`}, carriers.Error{Kind: carriers.ErrFailed}},
		{"truncated body", uspsfake.Failure{Status: 200, Body: `{"pricingOptions":[{"shippingOptions":[`, Truncate: true}, // Cut off in transit: worth another try, as at every carrier (the kit's carriers.ReadAnswer).
			carriers.Error{Kind: carriers.ErrUnavailable}},
		{"body over 10 MiB", uspsfake.Failure{Status: 200, Body: `{"x":"` + strings.Repeat("a", carriers.MaxAnswerBytes) + `"}`}, carriers.Error{Kind: carriers.ErrFailed}},
	} {
		fake := newFake(t)
		c := newCarrier(t, fake)
		fake.FailNextWith(uspsfake.OpRates, tc.failure)
		_, err := c.Rates(context.Background(), domesticShipment())
		if !errors.Is(err, tc.want.Kind) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want.Kind)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
		got := *asCarrierError(t, err)
		want := tc.want
		want.Carrier, want.Operation = "USPS", "rate"
		if want.HTTPStatus == 0 {
			want.HTTPStatus = got.HTTPStatus
		}
		if want.Message == "" {
			if got.Message == "" {
				t.Errorf("%s: no message", tc.name)
			}
			want.Message = got.Message
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	fake.Close()
	_, err := c.Rates(context.Background(), domesticShipment())
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrUnavailable) || ce.Operation != "token" || ce.HTTPStatus != 0 {
		t.Errorf("%#v, want ErrUnavailable from the token fetch", ce)
	}
}

func TestTokenEndpointBusy(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	fake.FailNext(uspsfake.OpToken, http.StatusTooManyRequests, `{"error":"too_many_requests"}`)
	_, err := c.Rates(context.Background(), domesticShipment())
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrUnavailable) || ce.RetryAfter != 7*time.Second {
		t.Errorf("%#v, want ErrUnavailable with Retry-After 7s", ce)
	}
	// The failure was not cached: the next call gets a token.
	if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
		t.Errorf("after the busy token endpoint: %v", err)
	}
}

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, code, message string
	}{
		{string(readExample(t, "error_cancel_not_found.json")), "00000XX", "Order not found"},
		{string(readExample(t, "error_address_not_found.json")), "404", "There is no match for the address requested."},
		{`{"error":"invalid_client","error_description":"Client authentication failed."}`, "invalid_client", "Client authentication failed."},
		{`{"error":{"code":400,"message":"Bad Request","errors":[{"code":12,"title":"Missing weight"},{"detail":"bad zip"}]}}`, "12", "Missing weight; bad zip"},
		{"plain\ntext   error", "", "plain text error"},
		{"", "", ""},
		{`{"error":{"errors":"nope"}}`, "", `{"error":{"errors":"nope"}}`},
	} {
		code, msg := parseErrorBody([]byte(tc.body))
		if code != tc.code || msg != tc.message {
			t.Errorf("parseErrorBody(%.40q) = %q, %q; want %q, %q", tc.body, code, msg, tc.code, tc.message)
		}
	}
	long := parseErrorBodyMessage(bytes.Repeat([]byte("x"), 5000))
	if len([]rune(long)) > carriers.ExcerptLimit+1 {
		t.Errorf("a long body gives a %d-character message", len(long))
	}
}

func parseErrorBodyMessage(b []byte) string {
	_, m := parseErrorBody(b)
	return m
}
