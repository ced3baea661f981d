package ups

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// ddpShipment is internationalShipment declared DDP with every field of
// the declaration.
func ddpShipment() carriers.Shipment {
	s := internationalShipment()
	s.Customs.Incoterm, s.Customs.InvoiceNumber = carriers.IncotermDDP, "INV-2026-0042"
	s.Customs.ImporterTaxID, s.Customs.ExporterTaxID = "FR12345678901", "12-3456789"
	return s
}

func TestGoldenShipRequestDDP(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest(ddpShipment(), "WorldwideExpedited")); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "ship_request_ddp.golden.json", fake.LastRequest(upsfake.OpShip))
}

// The invoice UPS returns (ShipmentResults/Form) is the label's customs
// document; a domestic label has none.
func TestBuyKeepsTheInvoice(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(ddpShipment(), "WorldwideExpedited"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(l.CustomsDocument, []byte("%PDF-")) {
		t.Fatalf("customs document %q, want UPS's invoice PDF", l.CustomsDocument[:min(len(l.CustomsDocument), 20)])
	}
	for _, s := range []string{"UPS COMMERCIAL INVOICE", "Invoice number: INV-2026-0042", "Terms of shipment: DDP", l.TrackingNumber} {
		if !strings.Contains(string(l.CustomsDocument), s) {
			t.Errorf("the invoice does not say %q", s)
		}
	}
	d, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	if d.CustomsDocument != nil {
		t.Errorf("a domestic label has a customs document of %d bytes", len(d.CustomsDocument))
	}
}
