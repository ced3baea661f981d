package fedex

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// ddpInternational is international() declared DDP with every field of the
// declaration, an export that cites its ITN.
func ddpInternational() carriers.Shipment {
	s := international()
	s.Customs.Incoterm, s.Customs.InvoiceNumber, s.Customs.EELPFC = carriers.IncotermDDP, "INV-2026-0042", "AES X20261127123456"
	s.Customs.ImporterTaxID, s.Customs.ExporterTaxID = "GB123456789000", "12-3456789"
	return s
}

func TestGoldenShipRequestDDP(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234569", ddpInternational(), "InternationalEconomy")); err != nil {
		t.Fatalf("Buy: %v", err)
	}
	checkGolden(t, "ship_international_ddp.json", fake.LastRequestBody(fedexfake.OpShip))
}

// The commercial invoice FedEx returns (shipmentDocuments) is the label's
// customs document, sent electronically (ETD) too.
func TestBuyKeepsTheCommercialInvoice(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234569", ddpInternational(), "InternationalEconomy"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	if !bytes.HasPrefix(l.CustomsDocument, []byte("%PDF")) {
		t.Fatalf("customs document %q, want FedEx's invoice PDF", l.CustomsDocument[:min(len(l.CustomsDocument), 20)])
	}
	for _, s := range []string{"FEDEX COMMERCIAL INVOICE", "Invoice number: INV-2026-0042", "Terms of sale: DDP", "Export: AESX20261127123456",
		"sent electronically", "AWB: " + l.TrackingNumber} {
		if !strings.Contains(string(l.CustomsDocument), s) {
			t.Errorf("the invoice does not say %q", s)
		}
	}
}

func TestExportStatement(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"AES X20261127123456": "AESX20261127123456",
		"NOEEI 30.37(a)":      "NO EEI 30.37(a)",
		"noeei 30.36":         "NO EEI 30.36",
	} {
		if got := exportStatement(in); got != want {
			t.Errorf("exportStatement(%q) = %q, want %q", in, got, want)
		}
	}
}
