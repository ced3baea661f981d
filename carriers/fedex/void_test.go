package fedex

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

func buyDomestic(t *testing.T, c *Carrier, ref string) carriers.Label {
	t.Helper()
	label, err := c.Buy(context.Background(), buyRequest(ref, domestic(), "Ground"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	return label
}

func TestVoidConfirmed(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_void")
	st, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber, Reference: "shp_void"})
	if err != nil || st != carriers.VoidConfirmed {
		t.Fatalf("Void = %q, %v; want confirmed", st, err)
	}
	// FedEx cancels at once: a second void is refused, not confirmed again.
	_, err = c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber, Reference: "shp_void"})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("second Void error = %v, want ErrRejected", err)
	}
}

func TestVoidRefusedAfterPickup(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_picked_up")
	for range 2 { // the second Track call shows the pickup scan
		if _, err := c.Track(context.Background(), label.TrackingNumber); err != nil {
			t.Fatalf("Track: %v", err)
		}
	}
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("Void error = %v, want ErrRejected", err)
	}
	ce := asCarrierError(t, err)
	if ce.Code != fedexfake.CodeCancelNotAllowed || ce.Message != "The shipment cannot be cancelled: FedEx already has the package." {
		t.Errorf("error = %+v, want the carrier's code %s and message", ce, fedexfake.CodeCancelNotAllowed)
	}
	if got := err.Error(); got != "FedEx void: The shipment cannot be cancelled: FedEx already has the package. ("+fedexfake.CodeCancelNotAllowed+")" {
		t.Errorf("Error() = %q, want it to carry the carrier's message and code", got)
	}
}

func TestVoidRefusalSwitch(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_switch")
	fake.FailNext(fedexfake.OpCancel, 200, fedexfake.CancelRefusedBody("SHIPMENT.ALREADY.MANIFESTED", "Shipment was manifested."))
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("error = %v, want ErrRejected", err)
	}
	if ce := asCarrierError(t, err); ce.Code != "SHIPMENT.ALREADY.MANIFESTED" || ce.Message != "Shipment was manifested." {
		t.Errorf("error = %+v", ce)
	}
	// The switch is used up: the label is still voidable.
	if st, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber}); st != carriers.VoidConfirmed || err != nil {
		t.Errorf("Void after the refusal = %q, %v; want confirmed", st, err)
	}
}

func TestVoidUnknownTrackingNumber(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "123456789012"})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("Void error = %v, want ErrRejected", err)
	}
	if ce := asCarrierError(t, err); ce.HTTPStatus != http.StatusBadRequest || ce.Code != "TRACKINGNUMBER.ENTERED.INVALID" {
		t.Errorf("error = %+v, want FedEx's 400 TRACKINGNUMBER.ENTERED.INVALID", ce)
	}
}

func TestVoidUsesCarrierShipmentID(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_master")
	// A multi-piece shipment is cancelled by its master number, which Buy
	// keeps as CarrierShipmentID when it differs from the tracking number.
	st, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "999999999999", CarrierShipmentID: label.TrackingNumber})
	if err != nil || st != carriers.VoidConfirmed {
		t.Fatalf("Void = %q, %v; want confirmed", st, err)
	}
	var sent cancelRequest
	if err := json.Unmarshal(fake.LastRequestBody(fedexfake.OpCancel), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.TrackingNumber != label.TrackingNumber {
		t.Errorf("cancelled %q, want the CarrierShipmentID %q", sent.TrackingNumber, label.TrackingNumber)
	}
}

func TestGoldenCancelRequest(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_golden_void")
	if _, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber}); err != nil {
		t.Fatalf("Void: %v", err)
	}
	checkGolden(t, "cancel.json", fake.LastRequestBody(fedexfake.OpCancel))
}

func TestParseCancelResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		want     carriers.VoidStatus
		wantKind error
		wantCode string
	}{
		{"documented success", `{"transactionId":"624deea6","output":{"cancelledShipment":true,"cancelledHistory":true,"message":"Shipment is successfully cancelled"}}`,
			carriers.VoidConfirmed, nil, ""},
		{"refused", `{"output":{"cancelledShipment":false,"message":"Shipment not found","alerts":[{"code":"X.Y","alertType":"WARNING","message":"m"}]}}`,
			"", carriers.ErrRejected, "X.Y"},
		{"refused without a message", `{"output":{"cancelledShipment":false}}`, "", carriers.ErrRejected, ""},
		{"no output", `{"transactionId":"1"}`, "", carriers.ErrFailed, ""},
		{"no verdict", `{"output":{"message":"hm"}}`, "", carriers.ErrFailed, ""},
		{"wrong type", `{"output":{"cancelledShipment":"yes"}}`, "", carriers.ErrFailed, ""},
		{"not JSON", `<html></html>`, "", carriers.ErrFailed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseCancelResponse([]byte(tt.body))
			if got != tt.want {
				t.Errorf("status = %q, want %q", got, tt.want)
			}
			if tt.wantKind == nil {
				if err != nil {
					t.Errorf("error = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("error = %v, want %v", err, tt.wantKind)
			}
			if ce := asCarrierError(t, err); ce.Code != tt.wantCode || ce.Message == "" {
				t.Errorf("error = %+v, want code %q and a message", ce, tt.wantCode)
			}
		})
	}
}
