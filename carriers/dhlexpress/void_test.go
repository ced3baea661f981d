package dhlexpress

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// DHL Express cannot cancel a shipment through its API: Void refuses,
// says why and what to do, and calls nothing; the connector does not
// declare voids.
func TestVoidRefused(t *testing.T) {
	t.Parallel()
	c, fake, rec := newTestCarrier(t)
	st, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "1234567890", Reference: "shp_x"})
	ce := asCarrierError(t, err)
	if st != "" || !errors.Is(err, carriers.ErrRejected) || ce.Code != VoidRefusedCode ||
		!strings.Contains(ce.Message, "cannot cancel a shipment through its API") || !strings.Contains(ce.Message, "waybill 1234567890") {
		t.Errorf("void: %q, %+v", st, ce)
	}
	if len(rec.Exchanges()) != 0 || fake.TokenRequests() != 0 {
		t.Errorf("void called DHL")
	}
	if c.Capabilities().Has(carriers.CapVoid) {
		t.Error("the connector declares voids")
	}
}
