package ui_test

import (
	"net/http"
	"strings"
	"testing"
)

// The batches page lists the mode's batches with their counts, and its
// Download labels link serves every purchased label as one PDF.
func TestBatchesPageListsCountsAndDownloadsLabels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	item := func(name string) map[string]any {
		return map[string]any{
			"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
			"toAddress":   map[string]any{"name": name, "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
			"parcel":      map[string]any{"weightOz": 32},
		}
	}
	status, batch := b.api("POST", "/batches", b.token, map[string]any{"shipments": []any{item("Ada Lovelace"), item("Fail Purchase"), item("Grace Hopper")}})
	if status != http.StatusAccepted {
		t.Fatalf("POST /batches: %d %v", status, batch)
	}
	id := batch["id"].(string)
	b.waitBatchCompleted(t, id)

	br := b.browser()
	br.signIn(b.email)
	p := br.get("/settings/batches")
	must(t, "batches page", p, http.StatusOK, id, "Completed", `<td class="num">3</td>`, `<td class="num">2</td>`, `<td class="num">1</td>`,
		`href="/settings/batches/`+id+`/labels.pdf">Download labels</a>`)
	if strings.Contains(p.body, "Customs documents") {
		t.Error("a domestic batch offers customs documents")
	}

	pdf := br.get("/settings/batches/" + id + "/labels.pdf")
	if pdf.status != http.StatusOK || pdf.header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.body, "%PDF-") {
		t.Fatalf("Download labels: %d %s %.40q", pdf.status, pdf.header.Get("Content-Type"), pdf.body)
	}
	if n := strings.Count(pdf.body, "/Type /Page "); n != 2 {
		t.Errorf("the merged document has %d pages, want the 2 purchased labels", n)
	}
	// Another account sees nothing of it.
	other := b.browser()
	_, email, _ := b.newAccount("Other", "grace@example.com")
	other.signIn(email)
	must(t, "another account's download", other.get("/settings/batches/"+id+"/labels.pdf"), http.StatusNotFound)
	if p := other.get("/settings/batches"); strings.Contains(p.body, id) {
		t.Error("another account's batches page lists the batch")
	}
}

// A batch with international items links its customs documents, which
// download as one PDF of their commercial invoices.
func TestBatchesPageDownloadsCustomsDocuments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	abroad := map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Pierre Tremblay", "phone": "416 555 0123", "street1": "100 Queen St W", "city": "Toronto", "state": "ON", "zip": "M5H 2N2", "country": "CA"},
		"parcel":      map[string]any{"weightOz": 32},
		"customs": map[string]any{"contentsType": "merchandise", "items": []any{map[string]any{
			"description": "Cotton T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 12, "hsTariffNumber": "6109.10", "originCountry": "US"}}},
	}
	status, batch := b.api("POST", "/batches", b.token, map[string]any{"shipments": []any{abroad, abroad}})
	if status != http.StatusAccepted || batch["customsUrl"] == nil {
		t.Fatalf("POST /batches: %d, customsUrl %v", status, batch["customsUrl"])
	}
	id := batch["id"].(string)
	b.waitBatchCompleted(t, id)
	br := b.browser()
	br.signIn(b.email)
	must(t, "batches page", br.get("/settings/batches"), http.StatusOK, `href="/settings/batches/`+id+`/customs.pdf">Customs documents</a>`)
	pdf := br.get("/settings/batches/" + id + "/customs.pdf")
	if pdf.status != http.StatusOK || !strings.HasPrefix(pdf.body, "%PDF-") || pdf.header.Get("Content-Disposition") != `attachment; filename="customs-`+id+`.pdf"` {
		t.Fatalf("Customs documents: %d %q %.40q", pdf.status, pdf.header.Get("Content-Disposition"), pdf.body)
	}
	if n := strings.Count(pdf.body, "/Type /Page "); n != 2 {
		t.Errorf("%d pages, want the 2 invoices", n)
	}
}

// A batch whose every item failed offers no download: the page says why,
// and the document's address answers the reason, not a PDF of no pages.
func TestBatchesPageWithoutLabels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	item := map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Fail Purchase", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	}
	status, batch := b.api("POST", "/batches", b.token, map[string]any{"shipments": []any{item}})
	if status != http.StatusAccepted {
		t.Fatalf("POST /batches: %d %v", status, batch)
	}
	id := batch["id"].(string)
	b.waitBatchCompleted(t, id)
	br := b.browser()
	br.signIn(b.email)
	p := br.get("/settings/batches")
	must(t, "batches page", p, http.StatusOK, id, "No labels: every item failed or was refunded")
	if strings.Contains(p.body, "/settings/batches/"+id+"/labels.pdf") {
		t.Error("the page links a document of no labels")
	}
	must(t, "the download", br.get("/settings/batches/"+id+"/labels.pdf"), http.StatusConflict, "no label to print")
}
