package fedex

import (
	"context"
	"testing"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// A return label: RETURN_SHIPMENT with returnShipmentDetail PRINT_RETURN_LABEL,
// the customer as shipper and the merchant as recipient.
func TestGoldenShipRequestReturn(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	s := domestic()
	s.Return = true
	if !c.ReturnService("Ground") {
		t.Fatal("FedEx Ground cannot be bought as a return")
	}
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234569", s, "Ground"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	if !fake.IsReturn(l.TrackingNumber) {
		t.Error("the fake did not sell a return label")
	}
	checkGolden(t, "ship_return.json", fake.LastRequestBody(fedexfake.OpShip))
}
