package fedex

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

var labelOut = flag.String("label-out", "", "write the PDF of TestBuyDomestic's label to this file (to look at it)")

func TestBuyDomestic(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234567", domestic(), "Ground"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	if label.TrackingNumber != "794600000001" {
		t.Errorf("TrackingNumber = %q, want the fake's first number 794600000001", label.TrackingNumber)
	}
	if label.CarrierShipmentID != "" {
		t.Errorf("CarrierShipmentID = %q, want none: a single-package FedEx shipment is voided by its tracking number", label.CarrierShipmentID)
	}
	if !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("label does not start with %%PDF: %q", label.Document[:min(16, len(label.Document))])
	}
	if !bytes.Contains(label.Document, []byte("%%EOF")) {
		t.Errorf("label PDF has no %%%%EOF trailer; it was cut")
	}
	if got, want := fake.LastRequestHeader(fedexfake.OpShip).Get("x-customer-transaction-id"), "shipd-shp_0123456789abcdef01234567"; got != want {
		t.Errorf("x-customer-transaction-id = %q, want %q", got, want)
	}
	if *labelOut != "" {
		if err := os.WriteFile(*labelOut, label.Document, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuyEachDomesticService(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	rates, err := c.Rates(context.Background(), domestic())
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	seen := map[string]bool{}
	for _, r := range rates {
		label, err := c.Buy(context.Background(), carriers.BuyRequest{Reference: "shp_" + r.Service, Shipment: domestic(), Rate: r})
		if err != nil {
			t.Errorf("Buy(%s): %v", r.Service, err)
			continue
		}
		if seen[label.TrackingNumber] {
			t.Errorf("Buy(%s): tracking number %s given twice", r.Service, label.TrackingNumber)
		}
		seen[label.TrackingNumber] = true
	}
}

func TestBuyInternational(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest("shp_intl", international(), "InternationalPriority"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	if label.TrackingNumber == "" || !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("label = %q with %d bytes, want a tracking number and a PDF", label.TrackingNumber, len(label.Document))
	}
}

func TestBuyRefusedLocally(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	tests := []struct {
		name    string
		mutate  func(r *carriers.BuyRequest)
		wantErr []error
		wantMsg string
	}{
		{"no reference", func(r *carriers.BuyRequest) { r.Reference = " " }, []error{carriers.ErrRejected}, "no reference"},
		{"rate of another carrier", func(r *carriers.BuyRequest) { r.Rate.Carrier = "UPS" }, []error{carriers.ErrRejected}, `"UPS"`},
		{"unknown service", func(r *carriers.BuyRequest) { r.Rate.Service = "Teleport" }, []error{carriers.ErrRejected}, "Ground"},
		{"international without customs", func(r *carriers.BuyRequest) { r.Shipment = international(); r.Shipment.Customs = nil },
			[]error{carriers.ErrCustomsRequired, carriers.ErrRejected}, "GB"},
		{"zero weight", func(r *carriers.BuyRequest) { r.Shipment.Parcel.WeightOz = 0 }, []error{carriers.ErrInvalidShipment, carriers.ErrRejected}, "weight"},
		{"recipient without phone", func(r *carriers.BuyRequest) { r.Shipment.To.Phone = "" }, []error{carriers.ErrRejected}, "recipient's phone"},
		{"sender with a short phone", func(r *carriers.BuyRequest) { r.Shipment.From.Phone = "555-0100" }, []error{carriers.ErrRejected}, "sender's phone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := buyRequest("shp_refused", domestic(), "Ground")
			tt.mutate(&req)
			_, err := c.Buy(context.Background(), req)
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("error = %v, want it to match %v", err, want)
				}
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
	if n := fake.Requests(fedexfake.OpShip); n != 0 {
		t.Errorf("the fake got %d ship requests for purchases refused locally, want 0", n)
	}
}

func TestBuyRejectedByFedEx(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	// A street line over FedEx's 35 characters passes shipd's checks and
	// is refused by the carrier with its documented 400 body.
	s := domestic()
	s.To.Street1 = strings.Repeat("Long Street Name ", 3)
	_, err := c.Buy(context.Background(), buyRequest("shp_long", s, "Ground"))
	if !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("error = %v, want ErrRejected", err)
	}
	ce := asCarrierError(t, err)
	if ce.HTTPStatus != 400 || ce.Code != "INVALID.INPUT.EXCEPTION" || !strings.Contains(ce.Message, "streetLines[0]") {
		t.Errorf("error = %+v, want FedEx's 400 INVALID.INPUT.EXCEPTION naming streetLines[0]", ce)
	}
}

func TestGoldenShipRequestDomestic(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	s := domestic()
	s.To.Residential = true
	s.Options.SignatureConfirmation = true
	if _, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234567", s, "HomeDelivery")); err != nil {
		t.Fatalf("Buy: %v", err)
	}
	checkGolden(t, "ship_domestic.json", fake.LastRequestBody(fedexfake.OpShip))
}

func TestGoldenShipRequestInternational(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234568", international(), "InternationalEconomy")); err != nil {
		t.Fatalf("Buy: %v", err)
	}
	checkGolden(t, "ship_international.json", fake.LastRequestBody(fedexfake.OpShip))
}
