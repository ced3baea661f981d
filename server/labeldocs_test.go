package server_test

// Label documents a carrier sells that shipd cannot use, end to end through
// the API against the carriers' fakes: a PDF bomb, a damaged multi-piece
// label, a label that is not a PDF, an answer larger than any shipd reads.
// The purchase fails once, the tenant pays nothing, and what the carrier
// sold is voided once (or, when the void fails, an ERROR log, an audit
// entry and a metric say so); a batch's merged document keeps a page in
// place of a stored label it cannot read.

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/internal/pdfmerge/pdftest"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/store"
)

// withPDFBudget reads label PDFs within budget, whose counters the test
// then reads.
func withPDFBudget(budget *pdfmerge.Budget) setupOption {
	return func(c *app.Config) { c.PDFBudget = budget }
}

// auditActions are the actions of the account's audit log in mode, oldest
// first, whose target names the shipment.
func auditActions(t *testing.T, b *bundle, mode, shipmentID string) []string {
	t.Helper()
	entries, _, err := b.store.ListAudit(context.Background(), b.account.ID, mode, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(entries[i].Target, shipmentID) {
			out = append(out, entries[i].Action)
		}
	}
	return out
}

// purchaseJobs are the purchase jobs of the shipment as River ran them:
// "state/attempt" each.
func purchaseJobs(t *testing.T, b *bundle, shipmentID string) []string {
	t.Helper()
	rows, err := b.sql(t).Queryx(`SELECT state, attempt, args FROM river_job WHERE kind = 'purchase_label'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var state string
		var attempt int
		var args []byte
		if err := rows.Scan(&state, &attempt, &args); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(args, []byte(shipmentID)) {
			out = append(out, fmt.Sprintf("%s/%d", state, attempt))
		}
	}
	return out
}

// noCharge fails the test when the live ledger of the account shows a
// card charge: a failed purchase is not paid.
func noCharge(t *testing.T, b *bundle) {
	t.Helper()
	entries, err := b.store.LedgerEntries(context.Background(), b.account.ID, "live")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Kind == store.LedgerCardCharge {
			t.Errorf("the failed purchase was charged: %+v", e)
		}
	}
}

// The bomb as FedEx's label: a 1 MB PDF of 16 object streams that
// each inflate to 64 MiB. The purchase fails at once with what is wrong,
// FedEx's label is voided once, nothing is charged, and the reading of the
// bomb allocated no more than the document limit (it had allocated 2.5 GiB
// and held 1.1 GiB per document).
func TestLivePDFBombFailsThePurchaseAndIsVoided(t *testing.T) {
	t.Parallel()
	budget := pdfmerge.NewBudget(0, pdfmerge.Limits{})
	b, f, live := setupLive(t, unscanned, withPDFBudget(budget))
	f.fedex.SetLabelDocument(pdftest.ObjectStreamBomb(16, 64<<20))

	sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
	sh = waitForStatus(t, b, live, sh.ID, "failed")
	msg := sh.str(sh.ErrorMessage)
	for _, want := range []string{"object stream", "inflates past 2048 KiB", "which shipd voids"} {
		if !strings.Contains(msg, want) {
			t.Errorf("errorMessage %q does not say %q", msg, want)
		}
	}
	waitUntil(t, "FedEx's label voided", func() bool {
		sales := f.fedex.Sales(sh.ID)
		return len(sales) == 1 && sales[0].Cancelled
	})
	if ships, cancels := f.fedex.Requests(fedexfake.OpShip), f.fedex.Requests(fedexfake.OpCancel); ships != 1 || cancels != 1 {
		t.Errorf("FedEx saw %d ship and %d cancel requests, want one each", ships, cancels)
	}
	waitUntil(t, "the void in the audit log", func() bool {
		return cmp.Equal([]string{labeljobs.AuditUnusableVoided}, auditActions(t, b, "live", sh.ID))
	})
	noCharge(t, b)
	waitForMetrics(t, b, map[string]float64{`shipd_unusable_labels_total{carrier="FedEx",outcome="voided"}`: 1})

	stats := budget.Stats()
	if stats.TooLarge != 1 || stats.PeakDocument > pdfmerge.DefaultDocumentLimit || stats.PeakHeld > stats.Budget || stats.Held != 0 {
		t.Errorf("PDF budget %+v: want the bomb refused, its reading within the document limit (%d), nothing held", stats, pdfmerge.DefaultDocumentLimit)
	}
}

// A multi-piece FedEx label whose piece is one of the damaged PDFs
// (an xref stream with /W [-5 10 1]): the worker panicked after FedEx sold
// the label, and each retry voided the last sale and bought again. Now the
// purchase fails on its first attempt, the shipment (every piece) is voided
// once, and nothing is bought again.
func TestLiveDamagedMultiPieceLabelFailsOnceAndIsVoidedOnce(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	f.fedex.SetLabelDocument(pdftest.Seeds()[0].Doc)

	sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground"), withParcels(16, 24)))
	sh = waitForStatus(t, b, live, sh.ID, "failed")
	if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, "the PDF of piece") || !strings.Contains(msg, "/W field of -5 bytes") {
		t.Errorf("errorMessage %q does not name the piece and what is wrong", msg)
	}
	waitUntil(t, "FedEx's shipment voided", func() bool {
		sales := f.fedex.Sales(sh.ID)
		return len(sales) == 1 && sales[0].Cancelled
	})
	waitUntil(t, "the void in the audit log", func() bool {
		return cmp.Equal([]string{labeljobs.AuditUnusableVoided}, auditActions(t, b, "live", sh.ID))
	})
	if ships, cancels := f.fedex.Requests(fedexfake.OpShip), f.fedex.Requests(fedexfake.OpCancel); ships != 1 || cancels != 1 {
		t.Errorf("FedEx saw %d ship and %d cancel requests, want one each", ships, cancels)
	}
	if pieces, cancelled := f.fedex.Pieces(f.fedex.Sales(sh.ID)[0].TrackingNumber); len(pieces) != 2 || !cancelled {
		t.Errorf("FedEx's shipment: pieces %v, cancelled %v; want both pieces cancelled", pieces, cancelled)
	}
	// One purchase job, completed at its first attempt: never retried.
	waitUntil(t, "the purchase job completed", func() bool {
		return cmp.Equal([]string{"completed/1"}, purchaseJobs(t, b, sh.ID))
	})
	if ships := f.fedex.Requests(fedexfake.OpShip); ships != 1 {
		t.Errorf("FedEx saw %d ship requests, want 1", ships)
	}
	noCharge(t, b)
}

// Labels sold with an answer that cannot be used are voided at the carrier
// and recorded; a void the carrier refuses is an ERROR log, an audit entry
// and the not_voided metric, for the operator to settle.
func TestLiveUnusableSoldLabelsAreVoided(t *testing.T) {
	t.Parallel()
	notPDF := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
	// 7.8 MiB of PDF-looking noise: its base64 (10.2 MiB) takes FedEx's
	// answer past the 10 MiB shipd reads, so the answer names no tracking
	// number and shipd asks FedEx (Track by References) what it sold.
	huge := make([]byte, 7800<<10)
	_, _ = rand.Read(huge)
	copy(huge, "%PDF-1.7\n")

	for _, tt := range []struct {
		name, says string
		doc        []byte
	}{
		{"not a PDF", "is not a PDF", notPDF},
		{"an answer over 10 MiB", "larger than 10 MiB", huge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, f, live := setupLive(t, unscanned)
			f.fedex.SetLabelDocument(tt.doc)
			sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
			sh = waitForStatus(t, b, live, sh.ID, "failed")
			if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, tt.says) {
				t.Errorf("errorMessage %q does not say %q", msg, tt.says)
			}
			waitUntil(t, "FedEx's label voided", func() bool {
				sales := f.fedex.Sales(sh.ID)
				return len(sales) == 1 && sales[0].Cancelled
			})
			waitUntil(t, "the void in the audit log", func() bool {
				return cmp.Equal([]string{labeljobs.AuditUnusableVoided}, auditActions(t, b, "live", sh.ID))
			})
			waitForMetrics(t, b, map[string]float64{`shipd_unusable_labels_total{carrier="FedEx",outcome="voided"}`: 1})
			noCharge(t, b)
		})
	}

	t.Run("the void tried again after an outage", func(t *testing.T) {
		t.Parallel()
		b, f, live := setupLive(t, unscanned)
		f.fedex.SetLabelDocument(notPDF)
		f.fedex.FailNext(fedexfake.OpCancel, http.StatusServiceUnavailable, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "down"))
		sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
		waitForStatus(t, b, live, sh.ID, "failed")
		waitForMetrics(t, b, map[string]float64{
			`shipd_unusable_labels_total{carrier="FedEx",outcome="error"}`:  1,
			`shipd_unusable_labels_total{carrier="FedEx",outcome="voided"}`: 1,
		})
		if sales := f.fedex.Sales(sh.ID); len(sales) != 1 || !sales[0].Cancelled {
			t.Errorf("FedEx's sales %+v: want the one label, cancelled", sales)
		}
		if diff := cmp.Diff([]string{labeljobs.AuditUnusableVoided}, auditActions(t, b, "live", sh.ID)); diff != "" {
			t.Errorf("audit log (-want +got):\n%s", diff)
		}
	})

	t.Run("the void refused", func(t *testing.T) {
		t.Parallel()
		var logs syncBuffer
		b, f, live := setupLive(t, unscanned, withLogs(&logs))
		f.fedex.SetLabelDocument(notPDF)
		f.fedex.Fail(fedexfake.OpCancel, fedexfake.Failure{Status: http.StatusOK,
			Body: fedexfake.CancelRefusedBody(fedexfake.CodeCancelNotAllowed, "The shipment cannot be cancelled.")})
		sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
		waitForStatus(t, b, live, sh.ID, "failed")
		waitForMetrics(t, b, map[string]float64{
			`shipd_unusable_labels_total{carrier="FedEx",outcome="not_voided"}`: 1,
			`shipd_unusable_labels_total{carrier="FedEx",outcome="voided"}`:     0,
		})
		if diff := cmp.Diff([]string{labeljobs.AuditUnusableNotVoided}, auditActions(t, b, "live", sh.ID)); diff != "" {
			t.Errorf("audit log (-want +got):\n%s", diff)
		}
		line := regexp.MustCompile(`(?m)^.*level=ERROR.*is not voided: settle it with the carrier.*$`).FindString(logs.String())
		if line == "" || !strings.Contains(line, sh.ID) || !strings.Contains(line, "SHIPMENT.CANCEL.NOTALLOWED") {
			t.Errorf("no ERROR line naming the shipment and FedEx's refusal in the logs:\n%s", logs.String())
		}
		if sales := f.fedex.Sales(sh.ID); len(sales) != 1 || sales[0].Cancelled {
			t.Errorf("FedEx's sales %+v: want the one label, not cancelled", sales)
		}
		noCharge(t, b)
	})
}

// placeholderPages are the texts of a merged document's placeholder pages,
// in order (shipd writes their content uncompressed).
func placeholderPages(doc []byte) []string {
	return regexp.MustCompile(`\(The label of (shp_[0-9a-f]+) could not be merged`).FindAllString(string(doc), -1)
}

// A batch's labels.pdf with stored labels it cannot read (kept before
// purchases checked them: here written over two items' labels) is the
// whole document with a page in place of each, not a 200 with an empty
// body; concurrent downloads read the bomb within the budget.
func TestBatchLabelsKeepAPlaceForUnreadableDocuments(t *testing.T) {
	t.Parallel()
	budget := pdfmerge.NewBudget(0, pdfmerge.Limits{})
	b := setup(t, withPDFBudget(budget))
	d := createBatch(t, b, batchBody(labelBody(), labelBody(), labelBody()))
	waitForBatch(t, b, d.ID)
	var page batchShipmentList
	b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/shipments", b.token, nil).Decode(t, &page)
	if len(page.Data) != 3 {
		t.Fatalf("%d shipments, want 3", len(page.Data))
	}
	damaged, bomb := page.Data[1].ID, page.Data[2].ID
	docs := openDocs(t, b.docs)
	for id, doc := range map[string][]byte{damaged: pdftest.Seeds()[0].Doc, bomb: pdftest.ObjectStreamBomb(16, 64<<20)} {
		if err := docs.Put(context.Background(), shipping.LabelKey(id), doc); err != nil {
			t.Fatal(err)
		}
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			r, err := b.send("GET", "/api/v1/batches/"+d.ID+"/labels.pdf", b.token, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF")) || !bytes.HasSuffix(r.Body, []byte("%%EOF\n")) {
				t.Errorf("labels.pdf: %d, %d bytes, want 200 and a whole PDF", r.Status, len(r.Body))
				return
			}
			if m := regexp.MustCompile(`/Type /Pages /Count (\d+)`).FindSubmatch(r.Body); m == nil || string(m[1]) != "3" {
				t.Errorf("labels.pdf has %s pages, want 3", m)
			}
			want := []string{"(The label of " + damaged + " could not be merged", "(The label of " + bomb + " could not be merged"}
			if diff := cmp.Diff(want, placeholderPages(r.Body)); diff != "" {
				t.Errorf("placeholder pages (-want +got):\n%s", diff)
			}
		})
	}
	wg.Wait()
	if s := budget.Stats(); s.TooLarge != 4 || s.PeakHeld > s.Budget || s.PeakDocument > pdfmerge.DefaultDocumentLimit || s.Held != 0 {
		t.Errorf("PDF budget %+v: want the bomb refused by each download, within the budget and the document limit", s)
	}
}
