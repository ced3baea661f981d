package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// Live, the customs document is the carrier's own when it returns one (UPS's
// invoice, sent paperless where the lane allows), and the invoice shipd
// renders otherwise.
func TestLiveCustomsDocuments(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t, unscanned)
	for _, tc := range []struct {
		carrier string
		says    []string
	}{
		{"UPS", []string{"UPS COMMERCIAL INVOICE", "Invoice number: INV-77", "Terms of shipment: DAP"}},
		{"FedEx", []string{"FEDEX COMMERCIAL INVOICE", "Invoice number: INV-77", "Terms of sale: DAP", "Cotton T-shirt"}},
		{"USPS", []string{"COMMERCIAL INVOICE", "INV-77", "Cotton T-shirt", "Incoterm: DAP"}},
	} {
		fields := map[string]any{"invoiceNumber": "INV-77", "incoterm": "DAP"}
		body := liveBody(withInternational(true), withCustomsItems([]any{customsItem("Cotton T-shirt", 2, 5000, 12, "6109.10", "US")}, fields),
			withField("carrier", tc.carrier))
		r := b.doT(t, "POST", "/api/v1/labels/create", live, body)
		if r.Status != http.StatusAccepted {
			t.Errorf("%s: create: %d %s", tc.carrier, r.Status, r.Body)
			continue
		}
		var c shipmentDoc
		r.Decode(t, &c)
		s := waitForStatus(t, b, live, c.ID, "purchased")
		if s.Carrier != tc.carrier {
			t.Errorf("%s: bought from %s", tc.carrier, s.Carrier)
		}
		r = b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/customs.pdf", live, nil)
		wantStatus(t, r, http.StatusOK)
		if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Fatalf("%s: customs.pdf is not a PDF", tc.carrier)
		}
		text := normalizeSpace(pdfText(t, r.Body))
		for _, want := range tc.says {
			if !strings.Contains(text, want) {
				t.Errorf("%s: customs.pdf does not say %q:\n%s", tc.carrier, want, text)
			}
		}
	}
}

// Live landed cost: FedEx estimates the duties and taxes of a DDP shipment
// of classified goods (its Rate API's estimated duties and taxes), so its
// rates carry them in their price and the label bills them to the sender;
// UPS and USPS quote none, so they are left out rather than sold with
// duties the carrier would bill to the platform, unpaid by the customer.
// Without HS numbers FedEx estimates nothing, and nothing is offered.
func TestLiveDDPIsFedExLandedCost(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	items := []any{customsItem("Cotton T-shirt", 2, 5000, 12, "6109.10", "US")}
	ddp := liveBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DDP"}))
	var q struct {
		Rates []struct {
			rateDoc
			DutiesCents *int64 `json:"dutiesCents"`
		} `json:"rates"`
	}
	r := b.doT(t, "POST", "/api/v1/labels/quote", live, ddp)
	wantStatus(t, r, http.StatusOK)
	r.Decode(t, &q)
	dap := map[string]int64{}
	for _, rate := range quoteRates(t, b, live, liveBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DAP"}))) {
		dap[rate.Carrier+" "+rate.Service] = rate.CarrierRateCents
	}
	wantDuties := int64(5000 * fedexfake.DutyRatePercent / 100)
	if len(q.Rates) == 0 {
		t.Fatal("no DDP rates")
	}
	for _, rate := range q.Rates {
		name := rate.Carrier + " " + rate.Service
		if rate.Carrier != "FedEx" || rate.DutiesCents == nil || *rate.DutiesCents != wantDuties || rate.CarrierRateCents != dap[name]+wantDuties {
			t.Errorf("%s: %d with duties %v; want FedEx only, its DAP price %d plus %d of duties", name, rate.CarrierRateCents, rate.DutiesCents, dap[name], wantDuties)
		}
	}

	sh := createLabel(t, b, live, liveBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DDP"}), withField("carrier", "FedEx")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	var shipped struct {
		RequestedShipment struct {
			CustomsClearanceDetail struct {
				DutiesPayment struct{ PaymentType string } `json:"dutiesPayment"`
			} `json:"customsClearanceDetail"`
		} `json:"requestedShipment"`
	}
	if err := json.Unmarshal(f.fedex.LastRequestBody(fedexfake.OpShip), &shipped); err != nil {
		t.Fatal(err)
	}
	if got := shipped.RequestedShipment.CustomsClearanceDetail.DutiesPayment.PaymentType; got != "SENDER" {
		t.Errorf("the DDP label bills the duties to %q, want SENDER", got)
	}

	unclassified := liveBody(withInternational(true), withCustomsItems([]any{customsItem("Cotton T-shirt", 2, 5000, 12, "", "US")}, map[string]any{"incoterm": "DDP"}))
	wantError(t, b.doT(t, "POST", "/api/v1/labels/quote", live, unclassified), http.StatusUnprocessableEntity, "no_rates")
	docs := liveBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DDP", "contentsType": "documents"}))
	if rates := quoteRates(t, b, live, docs); len(rates) == 0 {
		t.Error("no rates for documents DDP (they pay no duties)")
	}
}

// Live USPS integrates its CN22 (up to $400) or CN23 with the label: the
// label document carries the declaration USPS drew from customsForm.
func TestLiveUSPSLabelCarriesItsCustomsForm(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t, unscanned)
	for _, tc := range []struct {
		valueCents int64
		form       string
	}{{40000, "CN 22"}, {40001, "CN 23"}} {
		body := liveBody(withInternational(true), withCustomsItems([]any{customsItem("Cotton T-shirt", 2, tc.valueCents, 12, "6109.10", "US")},
			map[string]any{"invoiceNumber": "INV-78"}), withField("carrier", "USPS"))
		r := b.doT(t, "POST", "/api/v1/labels/create", live, body)
		wantStatus(t, r, http.StatusAccepted)
		var c shipmentDoc
		r.Decode(t, &c)
		waitForStatus(t, b, live, c.ID, "purchased")
		r = b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", live, nil)
		wantStatus(t, r, http.StatusOK)
		pages := strings.Split(strings.TrimRight(pdfText(t, r.Body), "\f"), "\f")
		if len(pages) != 2 {
			t.Fatalf("%s: %d pages, want the label and its customs form", tc.form, len(pages))
		}
		form := normalizeSpace(pages[1])
		for _, want := range []string{"CUSTOMS DECLARATION " + tc.form, "AES/ITN: NO EEI 30.37(a)", "Invoice: INV-78", "2 x Cotton T-shirt", "6109.10 US"} {
			if !strings.Contains(form, want) {
				t.Errorf("%s: the form does not say %q:\n%s", tc.form, want, form)
			}
		}
	}
}
