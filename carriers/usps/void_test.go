package usps

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

func TestVoidConfirmedBeforeManifest(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	for _, tc := range []struct{ service string }{{"GroundAdvantage"}, {"PriorityMailInternational"}} {
		s := domesticShipment()
		if tc.service == "PriorityMailInternational" {
			s = internationalShipment()
		}
		label, err := c.Buy(ctx, buyRequest("shp_void_"+tc.service, tc.service, s))
		if err != nil {
			t.Fatal(err)
		}
		status, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: label.TrackingNumber, Reference: "shp_void"})
		if err != nil || status != carriers.VoidConfirmed {
			t.Errorf("%s: void = %q, %v; want confirmed", tc.service, status, err)
		}
	}
	if n := fake.Requests(uspsfake.OpVoid); n != 2 {
		t.Errorf("%d cancel requests, want 2", n)
	}
}

// TestVoidRefundRequested: a manifested label can only be refunded; USPS
// files a request (DISPUTED) and refuses a second one the same day, which
// means the first stands: both calls report VoidRequested.
func TestVoidRefundRequested(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	label, err := c.Buy(ctx, buyRequest("shp_refund", "Priority", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	if !fake.ManifestLabel(label.TrackingNumber) {
		t.Fatal("the fake does not know the label")
	}
	for i := range 2 {
		status, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: label.TrackingNumber})
		if err != nil || status != carriers.VoidRequested {
			t.Errorf("void #%d = %q, %v; want requested", i+1, status, err)
		}
	}
}

func TestVoidRefused(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	label, err := c.Buy(ctx, buyRequest("shp_used", "GroundAdvantage", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	// Two Track calls: USPS has accepted the parcel, the label is used.
	for range 2 {
		if _, err := c.Track(ctx, label.TrackingNumber); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, tracking, message string
	}{
		{"scanned label", label.TrackingNumber, "A refund request for this order cannot be submitted"},
		{"unknown label", "9205590234567899999999", "Order not found"},
	} {
		_, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: tc.tracking})
		if !errors.Is(err, carriers.ErrRejected) {
			t.Fatalf("%s: err = %v, want ErrRejected", tc.name, err)
		}
		ce := asCarrierError(t, err)
		if ce.Code != "00000XX" || ce.Message != tc.message || ce.HTTPStatus != http.StatusBadRequest || ce.Operation != "void" {
			t.Errorf("%s: %#v; want USPS's code 00000XX and message %q", tc.name, ce, tc.message)
		}
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{}); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("no tracking number: err = %v, want ErrRejected", err)
	}
}

func TestParseVoid(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]carriers.VoidStatus{"cancel_canceled.json": carriers.VoidConfirmed, "cancel_refund.json": carriers.VoidRequested} {
		if got, err := parseVoid(readExample(t, name)); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	for _, body := range []string{`{}`, `{"status":"PENDING"}`, `{"status":7}`, `[`, `<html/>`} {
		if _, err := parseVoid([]byte(body)); !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%s: err = %v, want ErrFailed", body, err)
		}
	}
	if !refundAlreadyRequested(readExample(t, "error_refund_same_day.json")) {
		t.Error("the documented same-day refusal is not recognised")
	}
	for _, name := range []string{"error_refund_not_submitted.json", "error_cancel_not_found.json"} {
		if refundAlreadyRequested(readExample(t, name)) {
			t.Errorf("%s taken for a refund already requested", name)
		}
	}
}
