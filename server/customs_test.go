package server_test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withCustomsItems replaces the declaration's items (the international
// body's declaration, from the US to Canada) and sets declaration fields.
func withCustomsItems(items []any, fields map[string]any) func(m map[string]any) {
	return func(m map[string]any) {
		c := m["customs"].(map[string]any)
		c["items"] = items
		for k, v := range fields {
			c[k] = v
		}
	}
}

func customsItem(desc string, qty int, valueCents int64, weightOz float64, hs, origin string) map[string]any {
	it := map[string]any{"description": desc, "quantity": qty, "valueCents": valueCents, "weightOz": weightOz}
	if hs != "" {
		it["hsTariffNumber"] = hs
	}
	if origin != "" {
		it["originCountry"] = origin
	}
	return it
}

func TestCustomsDeclarationRules(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	const itn = "AES X20261127123456"
	for _, tc := range []struct {
		name   string
		items  []any
		fields map[string]any
		code   string // "" for a quote with rates
		field  string
	}{
		{"HS number of 6 digits with a dot", []any{customsItem("Shirt", 1, 1000, 4, "6109.10", "US")}, nil, "", ""},
		{"HS number of 10 digits", []any{customsItem("Shirt", 1, 1000, 4, "6109.10.0012", "US")}, nil, "", ""},
		{"HS number of 5 digits", []any{customsItem("Shirt", 1, 1000, 4, "61091", "US")}, nil, "invalid_field", "customs.items.0.hsTariffNumber"},
		{"HS number of 11 digits", []any{customsItem("Shirt", 1, 1000, 4, "6109100012", ""), customsItem("Mug", 1, 1000, 4, "61091000123", "")}, nil, "invalid_field", "customs.items.1.hsTariffNumber"},
		{"HS number with letters", []any{customsItem("Shirt", 1, 1000, 4, "6109AB", "US")}, nil, "invalid_field", "customs.items.0.hsTariffNumber"},
		{"$2,500 under one Schedule B number needs no ITN", []any{customsItem("Watch", 1, 250000, 4, "9102.11", "CH")}, nil, "", ""},
		{"over $2,500 under one Schedule B number needs the ITN", []any{customsItem("Watch", 1, 250001, 4, "9102.11", "CH")}, nil, "missing_field", "customs.eelPfc"},
		{"two lines of one Schedule B number add up", []any{customsItem("Watch", 1, 150000, 4, "9102.11", "CH"), customsItem("Watch", 1, 150000, 4, "910211", "CH")}, nil, "missing_field", "customs.eelPfc"},
		{"lines without an HS number add up", []any{customsItem("Watch", 1, 150000, 4, "", ""), customsItem("Ring", 1, 150000, 4, "", "")}, nil, "missing_field", "customs.eelPfc"},
		{"several Schedule B numbers under $2,500 each", []any{customsItem("Watch", 1, 240000, 4, "9102.11", "CH"), customsItem("Ring", 1, 240000, 4, "7113.19", "IT")}, nil, "", ""},
		{"an exemption legend cannot replace the ITN", []any{customsItem("Watch", 1, 300000, 4, "9102.11", "CH")}, map[string]any{"eelPfc": "NOEEI 30.37(a)"}, "invalid_field", "customs.eelPfc"},
		{"the ITN lets it through", []any{customsItem("Watch", 1, 300000, 4, "9102.11", "CH")}, map[string]any{"eelPfc": itn}, "", ""},
		{"every declaration field", []any{customsItem("Shirt", 1, 1000, 4, "6109.10", "US")},
			map[string]any{"incoterm": "ddp", "eelPfc": "NOEEI 30.37(a)", "invoiceNumber": "INV-1", "importerTaxId": "CA123456789RT0001", "exporterTaxId": "12-3456789"}, "", ""},
	} {
		body := labelBody(withInternational(true), withCustomsItems(tc.items, tc.fields))
		r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, body)
		if tc.code == "" {
			if r.Status != http.StatusOK {
				t.Errorf("%s: status %d, want 200: %s", tc.name, r.Status, r.Body)
			}
			continue
		}
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422: %s", tc.name, r.Status, r.Body)
			continue
		}
		m := r.JSON(t)
		if m["code"] != tc.code || m["field"] != tc.field {
			t.Errorf("%s: code %v field %v, want %s %s: %s", tc.name, m["code"], m["field"], tc.code, tc.field, r.Body)
		}
		if tc.field == "customs.eelPfc" && !strings.Contains(m["error"].(string), "$2,500") {
			t.Errorf("%s: the error does not state the rule: %v", tc.name, m["error"])
		}
	}

	// The rule is the US's: an export from Canada needs no ITN.
	fromCA := labelBody(withInternational(true), withCustomsItems([]any{customsItem("Watch", 1, 900000, 4, "9102.11", "CH")}, nil),
		func(m map[string]any) {
			m["fromAddress"], m["toAddress"] = m["toAddress"], m["fromAddress"]
		})
	if r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, fromCA); r.Status != http.StatusOK {
		t.Errorf("export from Canada: status %d, want 200: %s", r.Status, r.Body)
	}
}

// pdfText is the text of a PDF by poppler's pdftotext, keeping the layout.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed: make test installs it")
	}
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func getCustomsPDF(t *testing.T, b *bundle, id string) []byte {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels/"+id+"/customs.pdf", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type = %q, want application/pdf", ct)
	}
	if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		t.Fatalf("body does not start with %%PDF-: %q", r.Body[:min(len(r.Body), 20)])
	}
	return r.Body
}

func TestCustomsPDF(t *testing.T) {
	t.Parallel()

	t.Run("the commercial invoice lists every item and adds them up", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		items := []any{
			customsItem("Cotton T-shirt", 3, 4497, 18, "6109.10", "US"),
			customsItem("Ceramic mug", 2, 2400, 28, "6912.00", "PT"),
			customsItem("Wool scarf", 1, 3999, 5.5, "6117.10.6010", "GB"),
		}
		body := labelBody(withInternational(true), withCustomsItems(items, map[string]any{
			"incoterm": "DAP", "invoiceNumber": "INV-2026-0042", "importerTaxId": "CA123456789RT0001", "exporterTaxId": "12-3456789",
		}), withField("carrier", "UPS"))
		c := createLabel(t, b, b.token, body)
		waitForStatus(t, b, b.token, c.ID, "purchased")
		text := pdfText(t, getCustomsPDF(t, b, c.ID))

		type line struct{ Desc, HS, Origin, Qty, Unit, Total string }
		want := []line{
			{"Cotton T-shirt", "6109.10", "US", "3", "14.99", "44.97"},
			{"Ceramic mug", "6912.00", "PT", "2", "12.00", "24.00"},
			{"Wool scarf", "6117.10.6010", "GB", "1", "39.99", "39.99"},
		}
		row := regexp.MustCompile(`(?m)^\s*(.+?)\s{2,}(\S+)\s+([A-Z]{2})\s+(\d+)\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+[\d.]+ lb\s*$`)
		var got []line
		var sum int64
		for _, m := range row.FindAllStringSubmatch(text, -1) {
			got = append(got, line{m[1], m[2], m[3], m[4], m[5], m[6]})
			sum += cents(t, m[6])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("invoice items (-want +got):\n%s\n%s", diff, text)
		}
		total := regexp.MustCompile(`TOTAL\s+(\d+)\s+(\d+\.\d\d)\s+([\d.]+) lb`).FindStringSubmatch(text)
		if total == nil {
			t.Fatalf("no TOTAL line:\n%s", text)
		}
		if total[1] != "6" || cents(t, total[2]) != sum || sum != 4497+2400+3999 || total[3] != "3.22" {
			t.Errorf("totals: quantity %s value %s weight %s lb; want 6, %d cents (the lines' sum), 3.22 lb", total[1], total[2], total[3], sum)
		}
		for _, s := range []string{
			"COMMERCIAL INVOICE", "INV-2026-0042", "Reason for export: SALE", "Incoterm: DAP", "NOEEI 30.37(a)",
			"EXPORTER (SHIPPER)", "IMPORTER (CONSIGNEE)", "Pierre Tremblay", "Toronto ON M5H 2N2", "CA123456789RT0001", "12-3456789",
			"Signature of shipper / exporter", "Total declared value: USD 108.96",
		} {
			if !strings.Contains(normalizeSpace(text), s) {
				t.Errorf("the invoice does not say %q:\n%s", s, text)
			}
		}
	})

	t.Run("pending while paying", func(t *testing.T) {
		t.Parallel()
		gate := newGate()
		b := setupLabels(t, withGated(0, gate, nil, nil))
		t.Cleanup(gate.open)
		c := createLabel(t, b, b.token, labelBody(withInternational(true)))
		gate.awaitEntered(t, c.ID)
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/customs.pdf", b.token, nil)
		wantError(t, r, http.StatusAccepted, "label_pending")
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n <= 0 {
			t.Errorf("Retry-After = %q, want a positive number of seconds", r.Header.Get("Retry-After"))
		}
		gate.open()
		waitForStatus(t, b, b.token, c.ID, "purchased")
		getCustomsPDF(t, b, c.ID)
	})

	t.Run("a domestic shipment has none", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, c.ID, "purchased")
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/customs.pdf", b.token, nil)
		wantError(t, r, http.StatusNotFound, "not_found")
		r = b.doT(t, "GET", "/api/v1/labels/shp_unknown/customs.pdf", b.token, nil)
		wantError(t, r, http.StatusNotFound, "not_found")
	})
}

func TestCustomsDDPDuties(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	items := []any{customsItem("Cotton T-shirt", 2, 10000, 12, "6109.10", "US"), customsItem("Mug", 1, 3333, 14, "6912.00", "PT")}
	dap := quoteRates(t, b, b.token, labelBody(withInternational(true), withCustomsItems(items, nil)))
	ddpBody := labelBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DDP"}))
	r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, ddpBody)
	wantStatus(t, r, http.StatusOK)
	var q struct {
		Rates []struct {
			rateDoc
			DutiesCents *int64 `json:"dutiesCents"`
		} `json:"rates"`
	}
	r.Decode(t, &q)

	const duties = (13333*15 + 99) / 100 // the sandbox's 15% of the declared value, rounded up
	base := map[string]int64{}
	for _, d := range dap {
		base[d.Carrier+"/"+d.Service] = d.CarrierRateCents
	}
	type priced struct {
		Service      string
		Duties, Rate int64
	}
	var want, got []priced
	for _, d := range dap {
		if d.Carrier != "USPS" { // USPS sells no delivered-duty-paid service
			want = append(want, priced{d.Carrier + "/" + d.Service, duties, d.CarrierRateCents + duties})
		}
	}
	for _, r := range q.Rates {
		if r.DutiesCents == nil {
			t.Errorf("%s/%s has no dutiesCents", r.Carrier, r.Service)
			continue
		}
		got = append(got, priced{r.Carrier + "/" + r.Service, *r.DutiesCents, r.CarrierRateCents})
		if r.CustomerPriceCents != r.CarrierRateCents+r.PlatformFeeCents {
			t.Errorf("%s/%s: customerPriceCents %d, want carrierRateCents + platformFeeCents", r.Carrier, r.Service, r.CustomerPriceCents)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DDP rates (-want +got):\n%s", diff)
	}
	if bytes.Contains(b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(withInternational(true), withCustomsItems(items, nil))).Body, []byte("dutiesCents")) {
		t.Error("a DAP quote shows dutiesCents")
	}

	// The label is charged with the duties: its price is the DDP rate's.
	c := createLabel(t, b, b.token, labelBody(withInternational(true), withCustomsItems(items, map[string]any{"incoterm": "DDP"}),
		withField("carrier", "FedEx"), withField("service", "InternationalEconomy")))
	s := waitForStatus(t, b, b.token, c.ID, "purchased")
	if want := base["FedEx/InternationalEconomy"] + duties; s.CarrierRateCents != want || s.ChargeAmountCents+s.BalanceAppliedCents != s.CustomerPriceCents {
		t.Errorf("carrierRateCents %d (want %d, the rate with duties), charged %d + balance %d of %d", s.CarrierRateCents, want,
			s.ChargeAmountCents, s.BalanceAppliedCents, s.CustomerPriceCents)
	}
	text := pdfText(t, getCustomsPDF(t, b, c.ID))
	if !strings.Contains(normalizeSpace(text), "Incoterm: DDP") || !strings.Contains(text, "paid by the shipper (DDP)") {
		t.Errorf("the invoice does not say DDP:\n%s", text)
	}
}

func cents(t *testing.T, dollars string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(dollars, ".")
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("amount %q", dollars)
	}
	return w*100 + f
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// USPS prints its customs declaration with the label: a CN22 up to $400 of
// contents, a CN23 above, on a page after the label; UPS and FedEx labels
// have none (their paperwork is the invoice).
func TestCustomsPostalForms(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	for _, tc := range []struct {
		name, carrier, service string
		valueCents             int64
		form                   string // "" for a label of one page
	}{
		{"USPS up to $400", "USPS", "PriorityMailInternational", 40000, "CN 22"},
		{"USPS above $400", "USPS", "PriorityMailInternational", 40001, "CN 23"},
		{"UPS", "UPS", "WorldwideSaver", 1000, ""},
	} {
		items := []any{customsItem("Cotton T-shirt", 2, tc.valueCents-1000, 12, "6109.10", "US"), customsItem("Ceramic mug", 1, 1000, 14, "6912.00", "PT")}
		c := createLabel(t, b, b.token, labelBody(withInternational(true), withCustomsItems(items, nil),
			withField("carrier", tc.carrier), withField("service", tc.service)))
		waitForStatus(t, b, b.token, c.ID, "purchased")
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		pages := strings.Split(strings.TrimRight(pdfText(t, r.Body), "\f"), "\f")
		if tc.form == "" {
			if len(pages) != 1 || strings.Contains(pages[0], "CUSTOMS DECLARATION") {
				t.Errorf("%s: %d pages, want the label alone:\n%s", tc.name, len(pages), strings.Join(pages, "\n---\n"))
			}
			continue
		}
		if len(pages) != 2 {
			t.Fatalf("%s: %d pages, want the label and its %s:\n%s", tc.name, len(pages), tc.form, strings.Join(pages, "\n---\n"))
		}
		form := normalizeSpace(pages[1])
		for _, s := range []string{"CUSTOMS DECLARATION " + tc.form, "[X] Sale of goods", "Cotton T-shirt 2", "Ceramic mug 1",
			"6109.10 US", "6912.00 PT", "Total 1.62 lb " + strconv.FormatFloat(float64(tc.valueCents)/100, 'f', 2, 64), "Sender's signature"} {
			if !strings.Contains(form, s) {
				t.Errorf("%s: the form does not say %q:\n%s", tc.name, s, pages[1])
			}
		}
	}
}

// The return of an international label declares the same goods as returned
// goods: the tax ids swap with the parties, the outbound's export filing
// and incoterm stay behind.
func TestCustomsOfAReturn(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	items := []any{customsItem("Watch", 1, 300000, 4, "9102.11", "CH")}
	out := createLabel(t, b, b.token, labelBody(withInternational(true), withCustomsItems(items, map[string]any{
		"incoterm": "DDP", "eelPfc": "AES X20261127123456", "invoiceNumber": "INV-9", "importerTaxId": "CA123", "exporterTaxId": "US456",
	}), withField("carrier", "UPS")))
	waitForStatus(t, b, b.token, out.ID, "purchased")
	r := b.doT(t, "POST", "/api/v1/labels/create", b.token, map[string]any{"returnOf": out.ID})
	wantStatus(t, r, http.StatusAccepted)
	var ret struct {
		Customs map[string]any `json:"customs"`
	}
	r.Decode(t, &ret)
	got := map[string]any{}
	for _, k := range []string{"contentsType", "incoterm", "eelPfc", "invoiceNumber", "importerTaxId", "exporterTaxId"} {
		if v, ok := ret.Customs[k]; ok {
			got[k] = v
		}
	}
	want := map[string]any{"contentsType": "returned_goods", "invoiceNumber": "INV-9", "importerTaxId": "US456", "exporterTaxId": "CA123"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the return's declaration (-want +got):\n%s", diff)
	}
}

// A batch's customs.pdf holds the invoice of every purchased international
// label, in item order: not the domestic item's, not the failed one's, and
// not a label's refunded since.
func TestBatchCustomsPDF(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	abroad := func(name, invoice string) map[string]any {
		return labelBody(withInternational(true), withToName(name), withCustomsItems(
			[]any{customsItem("Cotton T-shirt", 1, 1500, 6, "6109.10", "US")}, map[string]any{"invoiceNumber": invoice}))
	}
	d := createBatch(t, b, batchBody(
		abroad("Ada One", "INV-ONE"),
		labelBody(withToName("Bo Two")),
		abroad("Fail Purchase", "INV-FAILED"),
		abroad("Cy Three", "INV-THREE"),
		abroad("Di Four", "INV-FOUR"),
	))
	waitForBatch(t, b, d.ID) // while it buys: 202 label_pending (the contract's "Slow Carrier still paying")
	if want := b.http.URL + "/api/v1/batches/" + d.ID + "/customs.pdf"; deref(d.CustomsURL) != want {
		t.Errorf("customsUrl %q, want %q", deref(d.CustomsURL), want)
	}

	var page batchShipmentList
	b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/shipments", b.token, nil).Decode(t, &page)
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+page.Data[4].ID+"/refund", b.token, nil), http.StatusAccepted)

	r := b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/customs.pdf", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type = %q, want application/pdf", ct)
	}
	text := normalizeSpace(pdfText(t, r.Body))
	got := regexp.MustCompile(`INV-[A-Z]+`).FindAllString(text, -1)
	got = slices.Compact(got) // an invoice may name its number more than once
	if diff := cmp.Diff([]string{"INV-ONE", "INV-THREE"}, got); diff != "" {
		t.Errorf("invoices in the batch's customs.pdf (-want +got):\n%s\n%s", diff, text)
	}
	if n := strings.Count(text, "COMMERCIAL INVOICE"); n != 2 {
		t.Errorf("%d commercial invoices, want 2:\n%s", n, text)
	}

	domestic := createBatch(t, b, batchBody(labelBody(withToName("Bo Two"))))
	if domestic.CustomsURL != nil {
		t.Errorf("a domestic batch has customsUrl %q", *domestic.CustomsURL)
	}
	waitForBatch(t, b, domestic.ID)
	wantError(t, b.doT(t, "GET", "/api/v1/batches/"+domestic.ID+"/customs.pdf", b.token, nil), http.StatusNotFound, "not_found")
}
