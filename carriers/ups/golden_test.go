package ups

import (
	"context"
	"testing"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// The golden files under testdata/ are the exact requests sent to UPS
// (indented); regenerate them with
//
//	go test ./carriers/ups/ -run Golden -update
//
// and review the diff: it is the wire format change.

func TestGoldenRateRequestDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "rate_request_domestic.golden.json", fake.LastRequest(upsfake.OpRate))
}

func TestGoldenRateRequestInternational(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Rates(context.Background(), internationalShipment()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "rate_request_international.golden.json", fake.LastRequest(upsfake.OpRate))
}

func TestGoldenShipRequestDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	s := domesticShipment()
	s.Options.SignatureConfirmation = true
	if _, err := c.Buy(context.Background(), buyRequest(s, "Ground")); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "ship_request_domestic.golden.json", fake.LastRequest(upsfake.OpShip))
}

func TestGoldenShipRequestInternational(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest(internationalShipment(), "WorldwideExpedited")); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "ship_request_international.golden.json", fake.LastRequest(upsfake.OpShip))
}

func TestGoldenVerifyRequest(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	a := usAddress()
	a.Company = "Navy"
	a.Zip = "95113-1234"
	if _, err := c.Verify(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "verify_request.golden.json", fake.LastRequest(upsfake.OpVerify))
}

// A return label: ReturnService 9 (UPS Print Return Label), the merchant
// (To) as the paying shipper, the customer (From) as ShipFrom, and the
// package's merchandise description UPS requires of a return.
func TestGoldenShipRequestReturn(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	s := domesticShipment()
	s.Return = true
	if !c.ReturnService("Ground") {
		t.Fatal("UPS Ground cannot be bought as a return")
	}
	l, err := c.Buy(context.Background(), buyRequest(s, "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	if !fake.IsReturn(l.TrackingNumber) {
		t.Error("the fake did not sell a return label")
	}
	checkGolden(t, "ship_request_return.golden.json", fake.LastRequest(upsfake.OpShip))
}
