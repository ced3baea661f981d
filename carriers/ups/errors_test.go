package ups

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func TestRateFailures(t *testing.T) {
	t.Parallel()
	validRates := `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},"RatedShipment":[{"Service":{"Code":"03"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"10.00"}}]}}`
	for _, tc := range []struct {
		name string
		f    upsfake.Failure
		want carriers.Error
		// msg is a fragment the message must contain, for parse failures.
		msg string
	}{
		{name: "429 with Retry-After", f: upsfake.Failure{Status: 429, Body: upsfake.BodyRateLimited, Header: http.Header{"Retry-After": {"7"}}},
			want: carriers.Error{HTTPStatus: 429, Code: "10429", Message: "Too Many Requests", RetryAfter: 7 * time.Second, Kind: carriers.ErrUnavailable}},
		{name: "429 with a Retry-After of 31710 years", f: upsfake.Failure{Status: 429, Body: upsfake.BodyRateLimited, Header: http.Header{"Retry-After": {"999999999999"}}},
			want: carriers.Error{HTTPStatus: 429, Code: "10429", Message: "Too Many Requests", RetryAfter: time.Hour, Kind: carriers.ErrUnavailable}},
		{name: "503 with a far-future HTTP-date Retry-After", f: upsfake.Failure{Status: 503, Header: http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}},
			want: carriers.Error{HTTPStatus: 503, Message: "HTTP 503 with an empty body", RetryAfter: time.Hour, Kind: carriers.ErrUnavailable}},
		{name: "503 without Retry-After", f: upsfake.Failure{Status: 503, Body: upsfake.BodyServiceUnavailable},
			want: carriers.Error{HTTPStatus: 503, Code: "10503", Message: "Service Unavailable", Kind: carriers.ErrUnavailable}},
		{name: "503 with an HTTP-date Retry-After", f: upsfake.Failure{Status: 503, Header: http.Header{"Retry-After": {testNow().Add(90 * time.Second).Format(http.TimeFormat)}}},
			want: carriers.Error{HTTPStatus: 503, Message: "HTTP 503 with an empty body", RetryAfter: 90 * time.Second, Kind: carriers.ErrUnavailable}},
		{name: "500", f: upsfake.Failure{Status: 500, Body: upsfake.ErrorBody("9999", "Internal Server Error")},
			want: carriers.Error{HTTPStatus: 500, Code: "9999", Message: "Internal Server Error", Kind: carriers.ErrFailed}},
		{name: "500 general process failure is transient", f: upsfake.Failure{Status: 500, Body: upsfake.ErrorBody("20001", "General process failure")},
			want: carriers.Error{HTTPStatus: 500, Code: "20001", Message: "General process failure", Kind: carriers.ErrUnavailable}},
		{name: "documented 400", f: upsfake.Failure{Status: 400, Body: `{"response":{"errors":[{"code":"111285","message":"The postal code 99999 is invalid for AK United States."},{"code":"111500","message":"The selected service is not valid."}]}}`},
			want: carriers.Error{HTTPStatus: 400, Code: "111285", Message: "The postal code 99999 is invalid for AK United States.; The selected service is not valid.", Kind: carriers.ErrRejected}},
		{name: "404", f: upsfake.Failure{Status: 404, Body: upsfake.ErrorBody("20002", "Not found")},
			want: carriers.Error{HTTPStatus: 404, Code: "20002", Message: "Not found", Kind: carriers.ErrRejected}},
		{name: "403 blocked merchant", f: upsfake.Failure{Status: 403, Body: upsfake.ErrorBody("10403", "Blocked Merchant")},
			want: carriers.Error{HTTPStatus: 403, Code: "10403", Message: "Blocked Merchant", Kind: carriers.ErrFailed}},
		{name: "HTML error page", f: upsfake.Failure{Status: 502, ContentType: "text/html; charset=utf-8", Body: "<html><body><h1>502 Bad Gateway</h1></body></html>"},
			want: carriers.Error{HTTPStatus: 502, Message: "HTTP 502 with a 50-byte text/html body that is not the UPS error format", Kind: carriers.ErrFailed}},
		{name: "HTML with 200", f: upsfake.Failure{Status: 200, ContentType: "text/html", Body: "<html>maintenance</html>"},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "malformed JSON", f: upsfake.Failure{Status: 200, Body: `{"RateResponse":{"RatedShipment":[{]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "truncated body", f: upsfake.Failure{Status: 200, Body: validRates[:len(validRates)/2]},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "empty 200", f: upsfake.Failure{Status: 200},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "wrong types", f: upsfake.Failure{Status: 200, Body: `{"RateResponse":{"RatedShipment":[{"Service":{"Code":3},"TotalCharges":{"MonetaryValue":10}}]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "RateResponse.RatedShipment.Service.Code is a number where a string is expected"},
		{name: "missing TotalCharges", f: upsfake.Failure{Status: 200, Body: `{"RateResponse":{"RatedShipment":[{"Service":{"Code":"03"}}]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "service 03 has no TotalCharges"},
		{name: "amount not a number", f: upsfake.Failure{Status: 200, Body: `{"RateResponse":{"RatedShipment":[{"Service":{"Code":"03"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"ten"}}]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: `"ten": not a decimal amount`},
		{name: "no RateResponse", f: upsfake.Failure{Status: 200, Body: `{"response":{"errors":[]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "no RateResponse"},
		{name: "oversized body", f: upsfake.Failure{Status: 200, Body: `{"RateResponse":{"x":"` + strings.Repeat("a", carriers.MaxAnswerBytes) + `"}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := testCarrier(t)
			fake.Fail(upsfake.OpRate, tc.f)
			_, err := c.Rates(context.Background(), domesticShipment())
			ce := carrierError(t, err)
			got := *ce
			if tc.msg != "" {
				if !strings.Contains(got.Message, tc.msg) {
					t.Errorf("message %q does not contain %q", got.Message, tc.msg)
				}
				got.Message = ""
			}
			tc.want.Carrier, tc.want.Operation = "UPS", "rate"
			if diff := cmp.Diff(tc.want, got, sameError()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransportFailureIsUnavailable(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	c, err := New(Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "A1B2C3", BaseURL: url, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrUnavailable) || ce.Operation != "token" || ce.Message != "UPS could not be reached (connection refused)" {
		t.Errorf("got %+v, want an unavailable token error", ce)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	// A token first, so that the timeout hits the rate call.
	if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
		t.Fatal(err)
	}
	// A server that never answers: the handler returns only when the
	// client gives up and the connection closes (which the server notices
	// once the body has been read).
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer slow.Close()
	if n := fake.Requests(upsfake.OpRate); n != 1 {
		t.Fatalf("%d rate requests, want 1", n)
	}
	c.cfg.BaseURL = slow.URL
	c.cfg.HTTPClient = &http.Client{Timeout: 50 * time.Millisecond}
	_, err := c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrUnavailable) || ce.Operation != "rate" || !strings.Contains(ce.Message, "did not answer in time") {
		t.Errorf("got %+v, want an unavailable rate error after a timeout", ce)
	}
}

func TestTokenRefused(t *testing.T) {
	t.Parallel()
	fake := upsfake.New(t)
	c, err := New(Config{ClientID: upsfake.ClientID, ClientSecret: "wrong-secret-value", AccountNumber: upsfake.AccountNumber,
		BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	want := carriers.Error{Carrier: "UPS", Operation: "token", HTTPStatus: 401, Code: "10401",
		Message: "the carrier refused the credentials", Kind: carriers.ErrFailed}
	if diff := cmp.Diff(want, *ce, sameError()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := fake.Requests(upsfake.OpRate); n != 0 {
		t.Errorf("%d rate requests without a token, want 0", n)
	}
}

func TestTokenUnavailable(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.FailNext(upsfake.OpToken, 429, upsfake.BodyRateLimited)
	_, err := c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrUnavailable) || ce.Operation != "token" || ce.RetryAfter != 7*time.Second {
		t.Errorf("got %+v, want an unavailable token error with Retry-After 7s", ce)
	}
}
