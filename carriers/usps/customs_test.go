package usps

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// The customs form sends the lines' totals as declared (valueCents and
// weightOz are the whole line's), the export filing (the ITN lets a
// valuable export through) and the invoice's number.
func TestCustomsFormFields(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	s := internationalShipment()
	s.Customs.Items[0].ValueCents = 300000
	s.Customs.EELPFC, s.Customs.InvoiceNumber = "AES X20261127123456", "INV-2026-0042"
	if _, err := c.Buy(context.Background(), buyRequest("shp_itn", "PriorityMailInternational", s)); err != nil {
		t.Fatalf("Buy with an ITN: %v", err)
	}
	var sent struct {
		CustomsForm struct {
			AESITN        string `json:"AESITN"`
			InvoiceNumber string `json:"invoiceNumber"`
			Contents      []struct {
				ItemQuantity    int     `json:"itemQuantity"`
				ItemTotalValue  float64 `json:"itemTotalValue"`
				ItemTotalWeight float64 `json:"itemTotalWeight"`
			} `json:"contents"`
		} `json:"customsForm"`
	}
	if err := json.Unmarshal(fake.LastRequest(uspsfake.OpInternationalLabel), &sent); err != nil {
		t.Fatal(err)
	}
	type line struct {
		Qty           int
		Value, Weight float64
	}
	var got []line
	for _, l := range sent.CustomsForm.Contents {
		got = append(got, line{l.ItemQuantity, l.ItemTotalValue, l.ItemTotalWeight})
	}
	if diff := cmp.Diff([]line{{2, 3000, 0.375}, {1, 12.99, 0.625}}, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if sent.CustomsForm.AESITN != "AES X20261127123456" || sent.CustomsForm.InvoiceNumber != "INV-2026-0042" {
		t.Errorf("AESITN %q invoiceNumber %q", sent.CustomsForm.AESITN, sent.CustomsForm.InvoiceNumber)
	}

	for eel, want := range map[string]string{"": "NO EEI 30.37(a)", "NOEEI 30.37(h)": "NO EEI 30.37(h)"} {
		s := internationalShipment()
		s.Customs.EELPFC = eel
		if got := aesITN(s.Customs); got != want {
			t.Errorf("aesITN(%q) = %q, want %q", eel, got, want)
		}
	}
	_ = carriers.IncotermDAP
}
