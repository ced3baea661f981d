package ups

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func TestVoidConfirmed(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	req := carriers.VoidRequest{TrackingNumber: label.TrackingNumber, CarrierShipmentID: label.CarrierShipmentID, Reference: "shp_1"}
	st, err := c.Void(context.Background(), req)
	if err != nil || st != carriers.VoidConfirmed {
		t.Fatalf("Void = %q, %v; want confirmed", st, err)
	}
	// A void repeated after a lost answer meets "already voided": the
	// label is void all the same.
	st, err = c.Void(context.Background(), req)
	if err != nil || st != carriers.VoidConfirmed {
		t.Fatalf("second Void = %q, %v; want confirmed", st, err)
	}
	if n := fake.Requests(upsfake.OpVoid); n != 2 {
		t.Errorf("%d void requests, want 2", n)
	}
	// Without a separate shipment id, no package-level trackingnumber is
	// sent (UPS refuses those for international shipments).
	if h := fake.LastHeader(upsfake.OpVoid).Get("transId"); len(h) != 32 {
		t.Errorf("transId %q, want 32 characters", h)
	}
}

func TestVoidRefused(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	fake.FailNext(upsfake.OpVoid, 400, upsfake.BodyVoidExpired)
	_, err = c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber})
	ce := carrierError(t, err)
	want := carriers.Error{Carrier: "UPS", Operation: "void", HTTPStatus: 400, Code: "190101",
		Message: "Time for voiding has expired.", Kind: carriers.ErrRejected}
	if diff := cmp.Diff(want, *ce, sameError()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !errors.Is(err, carriers.ErrRejected) {
		t.Error("errors.Is(err, ErrRejected) is false")
	}
}

func TestVoidUnknownShipment(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "1ZA1B2C30300000019"})
	if ce := carrierError(t, err); ce.Code != "190102" || !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("got %v, want ErrRejected with code 190102", err)
	}
}

func TestVoidNotAvailableNowIsTransient(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.FailNext(upsfake.OpVoid, 400, upsfake.ErrorBody("190001", "Void not available at this time"))
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "1ZA1B2C30300000019"})
	if !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("got %v, want ErrUnavailable (UPS documents 190001 as transient)", err)
	}
}

func TestParseVoidResponse(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body string
		want voidResult
	}{
		"documented success": {`{"VoidShipmentResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},"SummaryResult":{"Status":{"Code":"1","Description":"Voided"}}}}`,
			voidResult{voided: true}},
		"summary not voided": {`{"VoidShipmentResponse":{"SummaryResult":{"Status":{"Code":"0","Description":"Not Voided"}}}}`,
			voidResult{code: "0", message: "Not Voided"}},
		"a package not voided": {`{"VoidShipmentResponse":{"SummaryResult":{"Status":{"Code":"1","Description":"Partially Voided"}},
			"PackageLevelResults":{"TrackingNumber":"1Z2","Status":{"Code":"0","Description":"Not Voided"}}}}`,
			voidResult{code: "0", message: "package 1Z2 not voided: Not Voided"}},
	} {
		got, err := parseVoidResponse([]byte(tc.body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(voidResult{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, bad := range []string{`{}`, `{"VoidShipmentResponse":{}}`, `{"VoidShipmentResponse":{"SummaryResult":{"Status":{}}}}`, `[`, `{"VoidShipmentResponse":{"SummaryResult":{"Status":{"Code":1}}}}`} {
		if _, err := parseVoidResponse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed without error", bad)
		}
	}
}

func TestVoidMultiPackageSendsTheTrackingNumber(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	// The fake, which sells one package per shipment, refuses a
	// trackingnumber that is not the shipment's own package with 190109:
	// the refusal proves the parameter was sent with the shipment id.
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "1ZA1B2C30300000027", CarrierShipmentID: "1ZA1B2C30300000019"})
	if ce := carrierError(t, err); ce.Code != "190109" {
		t.Errorf("got %v, want code 190109 (trackingnumber sent)", err)
	}
}
