package dhlparcelde

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// DHL's answers that are not a success, as each kind of failure: refused
// (the shipment), unavailable (retry later, Retry-After honoured), failed
// (the credentials, DHL itself, an answer shipd cannot read).
func TestOrderFailures(t *testing.T) {
	t.Parallel()
	badRequest := `{"status":{"title":"Bad Request","statusCode":400,"status":400,"detail":"Validation failed."},` +
		`"items":[{"sstatus":{"title":"Bad Request","statusCode":400,"status":400},"validationMessages":[` +
		`{"property":"shipper.postalCode","validationMessage":"Invalid postal code.","validationState":"Error"}]}]}`
	for _, tc := range []struct {
		name string
		f    dhlparceldefake.Failure
		want carriers.Error
		msg  string // a fragment of the message, when it is not compared whole
	}{
		{name: "400 with validation messages", f: dhlparceldefake.Failure{Status: 400, ContentType: "application/problem+json", Body: badRequest},
			want: carriers.Error{HTTPStatus: 400, Message: "shipper.postalCode: Invalid postal code.", Kind: carriers.ErrRejected}},
		{name: "400 with a status alone", f: dhlparceldefake.Failure{Status: 400, Body: `{"title":"Bad Request","status":400,"detail":"Unknown product."}`},
			want: carriers.Error{HTTPStatus: 400, Message: "Unknown product.", Kind: carriers.ErrRejected}},
		{name: "401", f: dhlparceldefake.Failure{Status: 401, Body: `{"title":"Unauthorized","statusCode":401,"status":401,"detail":"Invalid API key."}`},
			want: carriers.Error{HTTPStatus: 401, Message: "the carrier refused the credentials: Invalid API key.", Kind: carriers.ErrFailed}},
		{name: "403", f: dhlparceldefake.Failure{Status: 403, Body: `{"title":"Forbidden","status":403,"detail":"The user may not use this billing number."}`},
			want: carriers.Error{HTTPStatus: 403, Message: "The user may not use this billing number.", Kind: carriers.ErrFailed}},
		{name: "429 with Retry-After", f: dhlparceldefake.Failure{Status: 429, Body: `{"title":"Too Many Requests","statusCode":429,"status":429}`, RetryAfter: "7"},
			want: carriers.Error{HTTPStatus: 429, Message: "Too Many Requests", RetryAfter: 7 * time.Second, Kind: carriers.ErrUnavailable}},
		{name: "503 without a body", f: dhlparceldefake.Failure{Status: 503},
			want: carriers.Error{HTTPStatus: 503, Message: "HTTP 503 with an empty body", Kind: carriers.ErrUnavailable}},
		{name: "504 from a gateway", f: dhlparceldefake.Failure{Status: 504, ContentType: "text/html", Body: "<html>Gateway Timeout</html>"},
			want: carriers.Error{HTTPStatus: 504, Message: "HTTP 504 with a 28-byte text/html body that is not DHL's error format", Kind: carriers.ErrUnavailable}},
		{name: "500", f: dhlparceldefake.Failure{Status: 500, Body: `{"title":"Internal Server Error","statusCode":500,"status":500,"detail":"Backend error."}`},
			want: carriers.Error{HTTPStatus: 500, Message: "Backend error.", Kind: carriers.ErrFailed}},
		{name: "a redirect", f: dhlparceldefake.Failure{Status: 302, Header: http.Header{"Location": {"https://evil.example/collect"}}},
			want: carriers.Error{HTTPStatus: 302, Kind: carriers.ErrFailed}, msg: "redirect to evil.example"},
		{name: "an empty 200", f: dhlparceldefake.Failure{Status: 200},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON: it is not valid JSON"},
		{name: "200 without an item", f: dhlparceldefake.Failure{Status: 200, Body: `{"status":{"title":"OK","status":200},"items":[]}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "no item"},
		{name: "200 of the wrong types", f: dhlparceldefake.Failure{Status: 200, Body: `{"items":[{"shipmentNo":340434310428091700}]}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "items.shipmentNo is a number where a string is expected"},
		{name: "200 whose item was refused", f: dhlparceldefake.Failure{Status: 200, Body: `{"items":[{"sstatus":{"title":"Bad Request","status":400,"detail":"Weight too high."}}]}`},
			want: carriers.Error{HTTPStatus: 400, Message: "Weight too high.", Kind: carriers.ErrRejected}},
		{name: "a cut-off answer", f: dhlparceldefake.Failure{Status: 200, Body: `{"items":[`, Truncate: true},
			want: carriers.Error{HTTPStatus: 200, Message: "the answer was cut off", Kind: carriers.ErrUnavailable}},
		{name: "an oversized answer", f: dhlparceldefake.Failure{Status: 200, Body: `{"items":["` + strings.Repeat("a", carriers.MaxAnswerBytes) + `"]}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "larger than 10 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake := testCarrier(t)
			fake.Fail(dhlparceldefake.OpOrder, tc.f)
			_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Paket"))
			got := *carrierError(t, err)
			if tc.msg != "" {
				if !strings.Contains(got.Message, tc.msg) {
					t.Errorf("message %q does not contain %q", got.Message, tc.msg)
				}
				got.Message = ""
			}
			want := tc.want
			want.Carrier, want.Operation = "DHLParcelDE", "buy"
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// The fake's own refusal of wrong credentials: a wrong password or API key
// is the failure of the account, not of the shipment.
func TestWrongCredentials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tune func(*Config)
		msg  string
	}{
		{"password", func(c *Config) { c.Password = "not-the-password" }, "Unauthorized for given resource."},
		{"API key", func(c *Config) { c.APIKey = "not-the-api-key" }, "Invalid API key."},
	} {
		fake := dhlparceldefake.New(t)
		fake.SetNow(testNow)
		cfg := testConfig(fake)
		tc.tune(&cfg)
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []func() error{
			func() error { return c.CheckCredentials(context.Background()) },
			func() error {
				_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Paket"))
				return err
			},
		} {
			err := call()
			ce := carrierError(t, err)
			if !errors.Is(err, carriers.ErrFailed) || ce.HTTPStatus != 401 || !strings.Contains(ce.Message, msgCredentialsRefused) || !strings.Contains(ce.Message, tc.msg) {
				t.Errorf("wrong %s: %v, want ErrFailed, 401, the refusal and DHL's %q", tc.name, err, tc.msg)
			}
		}
		if fake.Sold() != 0 {
			t.Errorf("wrong %s: the fake sold a label", tc.name)
		}
	}
}

// A call that gets no answer is transient: a refused connection, a
// timeout.
func TestNoAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	fake := dhlparceldefake.New(t)
	cfg := testConfig(fake)
	cfg.BaseURL, cfg.HTTPClient = base, nil
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Buy(context.Background(), buyRequest(domesticShipment(), "Paket"))
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrUnavailable) || !strings.Contains(ce.Message, "connection refused") {
		t.Fatalf("refused connection: %v", err)
	}

	c, fake = testCarrier(t)
	fake.Fail(dhlparceldefake.OpTrack, dhlparceldefake.Failure{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Track(ctx, "00340434161094000001"); !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("a hanging tracking call: %v, want ErrUnavailable", err)
	}
}

// The Pickup API's 422 is an array of errors with a business code.
func TestPickupFailures(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	req := carriers.PickupRequest{Reference: "pkp_x", Address: bonn(), ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 1}
	fake.FailNext(dhlparceldefake.OpPickup, 422, `[{"errorCode":456,"title":"Unknown billingnumber","instance":"customerDetails.billingNumber","detail":"22222222225301"}]`)
	_, err := c.SchedulePickup(context.Background(), req)
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrRejected) || ce.Code != "456" || ce.Message != "Unknown billingnumber 22222222225301 (customerDetails.billingNumber)" {
		t.Fatalf("422: %+v", ce)
	}
	// Twice: the first 401 makes the adapter take a new token and ask again.
	fake.FailNext(dhlparceldefake.OpPickup, 401, ``)
	fake.FailNext(dhlparceldefake.OpPickup, 401, ``)
	_, err = c.SchedulePickup(context.Background(), req)
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrFailed) || !strings.Contains(ce.Message, "HTTP 401 with an empty body") {
		t.Fatalf("a 401 after the token refresh: %+v", ce)
	}
}

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, code, msg string
		ok              bool
	}{
		{`{"title":"Unauthorized","status":401,"detail":"The credentials you provided are invalid."}`, "", "The credentials you provided are invalid.", true},
		{`{"title":"Too Many Requests","status":429}`, "", "Too Many Requests", true},
		{`{"status":{"title":"Multistatus","status":207},"items":[{"shipmentNo":"1","sstatus":{"title":"Bad Request","status":400,"detail":"Not found."}},` +
			`{"shipmentNo":"2","sstatus":{"title":"OK","status":200}}]}`, "", "1: Not found.; 2: OK", true},
		{`{"error":"invalid_grant","error_description":"Invalid user credentials."}`, "", "Invalid user credentials. (invalid_grant)", true},
		{`[{"errorCode":"12","title":"Pickup date in the past"}]`, "12", "Pickup date in the past", true},
		{`{}`, "", "", false},
		{`[]`, "", "", false},
		{`<html>502</html>`, "", "", false},
		{``, "", "", false},
	} {
		code, msg, ok := parseErrorBody([]byte(tc.body))
		if code != tc.code || msg != tc.msg || ok != tc.ok {
			t.Errorf("%s: %q %q %v, want %q %q %v", tc.body, code, msg, ok, tc.code, tc.msg, tc.ok)
		}
	}
}
