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

// A DDP shipment's rates are its landed cost: the request asks for the
// estimated duties and taxes, paid by the sender, and each rate carries them
// (DutiesCents) inside its price.
func TestRatesDDPIncludeTheDuties(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	shipment := ddpInternational()
	shipment.Customs.Items[1].HSTariffNumber = "6912.00" // every line classified: FedEx can estimate
	ddp, err := c.Rates(context.Background(), shipment)
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	checkGolden(t, "rate_international_ddp.json", fake.LastRequestBody(fedexfake.OpRate))
	dap, err := c.Rates(context.Background(), international())
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	var value int64
	for _, it := range shipment.Customs.Items {
		value += it.ValueCents
	}
	wantDuties := value * fedexfake.DutyRatePercent / 100
	if len(ddp) == 0 || len(ddp) != len(dap) {
		t.Fatalf("%d DDP rates, %d DAP rates", len(ddp), len(dap))
	}
	for i := range ddp {
		if ddp[i].DutiesCents != wantDuties || ddp[i].CarrierRateCents != dap[i].CarrierRateCents+wantDuties || dap[i].DutiesCents != 0 {
			t.Errorf("%s: DDP %d (duties %d), DAP %d (duties %d); want the DAP price plus %d of duties",
				ddp[i].Service, ddp[i].CarrierRateCents, ddp[i].DutiesCents, dap[i].CarrierRateCents, dap[i].DutiesCents, wantDuties)
		}
	}

	// Without a harmonized code FedEx estimates nothing: no duties quoted.
	rates, err := c.Rates(context.Background(), ddpInternational()) // the mug has none
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	for _, r := range rates {
		if r.DutiesCents != 0 {
			t.Errorf("%s quotes %d of duties without a harmonized code", r.Service, r.DutiesCents)
		}
	}
}

func TestParseDutiesInEitherShape(t *testing.T) {
	t.Parallel()
	for _, duties := range []string{`12.5`, `"12.50"`, `{"amount": 12.5, "currency": "USD"}`} {
		body := []byte(`{"output": {"rateReplyDetails": [{"serviceType": "INTERNATIONAL_PRIORITY", "ratedShipmentDetails": [
			{"rateType": "ACCOUNT", "totalNetCharge": 100, "currency": "USD", "totalDutiesAndTaxes": ` + duties + `}]}]}}`)
		rates, err := parseRateResponse(body, true)
		if err != nil || len(rates) != 1 || rates[0].DutiesCents != 1250 || rates[0].CarrierRateCents != 11250 {
			t.Errorf("totalDutiesAndTaxes %s: %+v, %v; want 1250 of duties in 11250", duties, rates, err)
		}
		if rates, _ := parseRateResponse(body, false); len(rates) != 1 || rates[0].DutiesCents != 0 || rates[0].CarrierRateCents != 10000 {
			t.Errorf("totalDutiesAndTaxes %s without landed cost asked: %+v", duties, rates)
		}
	}
	bad := []byte(`{"output": {"rateReplyDetails": [{"serviceType": "INTERNATIONAL_PRIORITY", "ratedShipmentDetails": [
		{"rateType": "ACCOUNT", "totalNetCharge": 100, "currency": "USD", "totalDutiesAndTaxes": -3}]}]}}`)
	if _, err := parseRateResponse(bad, true); err == nil {
		t.Error("negative duties were accepted")
	}
}
