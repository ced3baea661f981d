package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/server"
)

type batchDoc struct {
	ID          string  `json:"id"`
	Mode        string  `json:"mode"`
	Status      string  `json:"status"`
	LabelFormat string  `json:"labelFormat"`
	LabelsURL   string  `json:"labelsUrl"`
	CustomsURL  *string `json:"customsUrl"`
	Counts      struct {
		Total, Paying, Pending, Purchased, Failed int
	} `json:"counts"`
}

type batchShipmentList struct {
	Data []struct {
		shipmentDoc
		BatchID *string `json:"batchId"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

func batchBody(items ...map[string]any) map[string]any {
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	return map[string]any{"shipments": list}
}

func createBatch(t *testing.T, b *bundle, body map[string]any) batchDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/batches", b.token, body)
	wantStatus(t, r, http.StatusAccepted)
	var d batchDoc
	r.Decode(t, &d)
	return d
}

func waitForBatch(t *testing.T, b *bundle, id string) batchDoc {
	t.Helper()
	var d batchDoc
	waitUntil(t, "batch "+id+" completed", func() bool {
		d = batchDoc{} // a field the last answer had and this one lacks is not kept
		b.doT(t, "GET", "/api/v1/batches/"+id, b.token, nil).Decode(t, &d)
		return d.Status == "completed"
	})
	return d
}

func batchCompletedEvents(t *testing.T, b *bundle) []map[string]any {
	t.Helper()
	var list struct {
		Data []map[string]any `json:"data"`
	}
	b.doT(t, "GET", "/api/v1/events?type=batch.completed&limit=100", b.token, nil).Decode(t, &list)
	return list.Data
}

// A batch is accepted whole, its items bought in order; it completes once
// with counts that add up, lists its shipments in item order and merges the
// purchased labels into one PDF in that order, the failed item skipped.
func TestBatchIsBoughtInOrderAndMergedIntoOneDocument(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"PDF", "ZPL"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			testBatchInOrder(t, format)
		})
	}
}

func testBatchInOrder(t *testing.T, format string) {
	b := setupLabels(t)
	names := []string{"Ada One", "Fail Purchase", "Cy Three", "Di Four", "Ed Five"}
	items := make([]map[string]any, len(names))
	for i, n := range names {
		items[i] = labelBody(withToName(n))
	}
	body := batchBody(items...)
	body["labelFormat"] = format
	want := strings.ToLower(format)
	d := createBatch(t, b, body)
	if d.Status != "purchasing" || d.Counts.Total != 5 || d.Counts.Paying+d.Counts.Purchased+d.Counts.Failed != 5 || d.LabelFormat != want {
		t.Fatalf("accepted batch = %+v, want purchasing with 5 items, labelFormat %s", d, want)
	}
	done := waitForBatch(t, b, d.ID)
	if diff := cmp.Diff(struct{ Total, Paying, Pending, Purchased, Failed int }{5, 0, 0, 4, 1}, done.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}

	var page batchShipmentList
	b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/shipments?limit=3", b.token, nil).Decode(t, &page)
	got := []string{}
	tracking := []string{}
	for {
		for _, sh := range page.Data {
			got = append(got, sh.ToAddress["name"].(string))
			if deref(sh.BatchID) != d.ID {
				t.Errorf("shipment %s batchId = %v, want %s", sh.ID, sh.BatchID, d.ID)
			}
			if sh.Status == "purchased" {
				tracking = append(tracking, *sh.TrackingNumber)
			}
		}
		if page.NextCursor == nil {
			break
		}
		next := *page.NextCursor
		page = batchShipmentList{}
		b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/shipments?limit=3&cursor="+next, b.token, nil).Decode(t, &page)
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("batch shipments not in item order (-want +got):\n%s", diff)
	}

	var list struct{ Data []batchDoc }
	b.doT(t, "GET", "/api/v1/batches", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != d.ID || list.Data[0].Counts.Purchased != 4 {
		t.Errorf("GET /batches = %+v, want the one batch with its counts", list.Data)
	}
	if ev := batchCompletedEvents(t, b); len(ev) != 1 || ev[0]["data"].(map[string]any)["id"] != d.ID {
		t.Errorf("batch.completed events = %v, want one for %s", ev, d.ID)
	}

	other := map[string]string{"pdf": "zpl", "zpl": "pdf"}[want]
	m := wantError(t, b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/labels."+other, b.token, nil), http.StatusConflict, "label_format_mismatch")
	if m["labelFormat"] != want || !strings.HasSuffix(fmt.Sprint(m["labelUrl"]), "/batches/"+d.ID+"/labels."+want) {
		t.Errorf("labels.%s of a %s batch: %v, want its format and its document's URL", other, want, m)
	}
	r := b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/labels."+want, b.token, nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/"+want {
		t.Errorf("Content-Type = %q", ct)
	}
	if want == "pdf" {
		checkMergedPDF(t, r.Body, tracking)
		return
	}
	// ZPL: the labels' documents one after another, in item order.
	if n := bytes.Count(r.Body, []byte("^XA")); n != len(tracking) || bytes.Count(r.Body, []byte("^XZ")) != n {
		t.Errorf("%d ^XA in the batch's ZPL, want %d labels", n, len(tracking))
	}
	at := -1
	for _, tn := range tracking {
		i := bytes.Index(r.Body, []byte(tn))
		if i < 0 || i < at {
			t.Errorf("tracking number %s at %d, after %d: labels out of order", tn, i, at)
		}
		at = i
	}
}

// checkMergedPDF checks the merged document's page count and that the
// labels' tracking numbers come in the given order, and that its
// cross-reference table points at its objects.
func checkMergedPDF(t *testing.T, doc []byte, tracking []string) {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.HasSuffix(bytes.TrimSpace(doc), []byte("%%EOF")) {
		t.Fatalf("not a PDF: %.60q", doc)
	}
	m := regexp.MustCompile(`/Type /Pages /Count (\d+)`).FindSubmatch(doc)
	if m == nil || string(m[1]) != strconv.Itoa(len(tracking)) {
		t.Errorf("page count = %s, want %d", m, len(tracking))
	}
	at := -1
	for _, tn := range tracking {
		i := bytes.Index(doc, []byte(tn))
		if i < 0 || i < at {
			t.Errorf("tracking number %s at %d, after %d: pages out of order", tn, i, at)
		}
		at = i
	}
	xref := regexp.MustCompile(`startxref\n(\d+)`).FindSubmatch(doc)
	off, _ := strconv.Atoi(string(xref[1]))
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(doc[off:], -1)
	for i, e := range entries {
		o, _ := strconv.Atoi(string(e[1]))
		if !bytes.HasPrefix(doc[o:], []byte(fmt.Sprintf("%d 0 obj", i+1))) && !bytes.Contains(doc[o:o+12], []byte(" 0 obj")) {
			t.Fatalf("xref entry %d points at %.20q", i+1, doc[o:])
		}
	}
}

// Validation is all or nothing: one invalid item among 5,000 (a body over
// the 1 MiB of other requests) refuses the batch naming that item, and
// nothing is stored.
func TestBatchWithOneInvalidItemStoresNothing(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	items := make([]map[string]any, 5000)
	for i := range items {
		items[i] = labelBody()
	}
	items[4999] = labelBody(func(m map[string]any) { m["toAddress"].(map[string]any)["zip"] = "00000" })
	items[17] = labelBody(func(m map[string]any) { m["toAddress"].(map[string]any)["state"] = "ZZ" })
	r := b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(items...))
	m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_request")
	paths := []string{}
	for _, is := range m["issues"].([]any) {
		paths = append(paths, is.(map[string]any)["path"].(string))
	}
	if diff := cmp.Diff([]string{"shipments.17.toAddress.state", "shipments.4999"}, paths); diff != "" {
		t.Errorf("issue paths (-want +got):\n%s\n%s", diff, r.Body)
	}
	var labels shipmentList
	b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &labels)
	var batches struct{ Data []batchDoc }
	b.doT(t, "GET", "/api/v1/batches", b.token, nil).Decode(t, &batches)
	if len(labels.Data) != 0 || len(batches.Data) != 0 {
		t.Errorf("a refused batch stored %d shipments and %d batches", len(labels.Data), len(batches.Data))
	}

	// The body limit is per operation: the same body is too large for a single create.
	big := labelBody(withField("idempotencyKey", string(bytes.Repeat([]byte("k"), 200))))
	big["options"] = map[string]any{"reference": string(bytes.Repeat([]byte("x"), 2<<20))}
	wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, big), http.StatusRequestEntityTooLarge, "payload_too_large")
}

// The same key and body replay the same batch; another body is a collision.
func TestBatchIdempotency(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	body := batchBody(labelBody(), labelBody(withToName("Bo Two")))
	body["idempotencyKey"] = "morning-run"
	first := createBatch(t, b, body)
	r := b.doT(t, "POST", "/api/v1/batches", b.token, body)
	wantStatus(t, r, http.StatusAccepted)
	var again batchDoc
	r.Decode(t, &again)
	if again.ID != first.ID || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %s (replayed %q), want batch %s", again.ID, r.Header.Get("Idempotent-Replayed"), first.ID)
	}
	other := batchBody(labelBody())
	other["idempotencyKey"] = "morning-run"
	wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, other), http.StatusConflict, "idempotency_key_collision")
	var labels shipmentList
	b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &labels)
	if len(labels.Data) != 2 {
		t.Errorf("%d shipments, want the first batch's 2", len(labels.Data))
	}
}

// A batch that would take the purchase backlog past its bound is refused
// whole; one that fits is accepted.
func TestBatchOverThePurchaseBacklogIsRefused(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withPurchaseQueue(2, 3))
	r := b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(labelBody(), labelBody(), labelBody(), labelBody()))
	wantError(t, r, http.StatusServiceUnavailable, "purchase_queue_full")
	var labels shipmentList
	b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &labels)
	if len(labels.Data) != 0 {
		t.Errorf("a refused batch stored %d shipments", len(labels.Data))
	}
	d := createBatch(t, b, batchBody(labelBody(), labelBody(), labelBody()))
	waitForBatch(t, b, d.ID)
}

// A batch of more labels than there are workers is bought in jobs of
// several labels each (shipping.PurchaseBatchArgs), and the backlog still
// counts labels, not jobs: with the one worker held at the carrier on the
// first job's first label, the second job's eight labels wait, and a batch
// that would take the backlog past its bound is refused. A label that fails
// does not stop the others of its job.
func TestBatchLabelsCountInThePurchaseBacklog(t *testing.T) {
	t.Parallel()
	buyGate := newGate()
	b := setupLabels(t, withGated(0, buyGate, nil, nil), withPurchaseQueue(1, 20))
	t.Cleanup(buyGate.open)
	items := make([]map[string]any, 16)
	for i := range items {
		items[i] = labelBody()
	}
	items[3] = labelBody(withToName("Fail Purchase"))
	first := createBatch(t, b, batchBody(items...))
	var page batchShipmentList
	b.doT(t, "GET", "/api/v1/batches/"+first.ID+"/shipments?limit=1", b.token, nil).Decode(t, &page)
	buyGate.awaitEntered(t, page.Data[0].ID)
	waitUntil(t, "the second job's 8 labels are counted", func() bool {
		n, err := b.app.Shipping.PurchaseBacklog(t.Context())
		return err == nil && n == 8
	})

	wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(items[:13]...)), http.StatusServiceUnavailable, "purchase_queue_full")
	second := createBatch(t, b, batchBody(items[:12]...))

	buyGate.open()
	for _, tc := range []struct {
		id                string
		purchased, failed int
	}{{first.ID, 15, 1}, {second.ID, 11, 1}} {
		d := waitForBatch(t, b, tc.id)
		if diff := cmp.Diff(struct{ Total, Paying, Pending, Purchased, Failed int }{tc.purchased + tc.failed, 0, 0, tc.purchased, tc.failed}, d.Counts); diff != "" {
			t.Errorf("batch %s counts (-want +got):\n%s", tc.id, diff)
		}
	}
}

// Many purchases finishing at once (every item held at the carrier, then
// released together) keep the counts exact and complete the batch once.
func TestBatchCompletesOnceUnderConcurrentPurchases(t *testing.T) {
	t.Parallel()
	buyGate := newGate()
	b := setupLabels(t, withGated(0, buyGate, nil, nil), withPurchaseQueue(16, 100))
	var ids []string
	for range 3 {
		items := make([]map[string]any, 16)
		for i := range items {
			items[i] = labelBody()
		}
		items[5] = labelBody(withToName("Fail Purchase"))
		ids = append(ids, createBatch(t, b, batchBody(items...)).ID)
	}
	var d batchDoc
	b.doT(t, "GET", "/api/v1/batches/"+ids[0], b.token, nil).Decode(t, &d)
	if d.Status != "purchasing" || d.Counts.Paying+d.Counts.Failed != 16 {
		t.Errorf("before the carrier answers: %+v", d)
	}
	buyGate.open()
	for _, id := range ids {
		d := waitForBatch(t, b, id)
		if diff := cmp.Diff(struct{ Total, Paying, Pending, Purchased, Failed int }{16, 0, 0, 15, 1}, d.Counts); diff != "" {
			t.Errorf("batch %s counts (-want +got):\n%s", id, diff)
		}
	}
	waitUntil(t, "three batch.completed", func() bool { return len(batchCompletedEvents(t, b)) >= 3 })
	seen := map[string]int{}
	for _, ev := range batchCompletedEvents(t, b) {
		seen[ev["data"].(map[string]any)["id"].(string)]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("batch %s: %d batch.completed events, want 1", id, seen[id])
		}
	}
}

// The merged document is 202 label_pending while an item is being bought.
func TestBatchLabelsArePendingWhileBuying(t *testing.T) {
	t.Parallel()
	buyGate := newGate()
	b := setupLabels(t, withGated(0, buyGate, nil, nil))
	d := createBatch(t, b, batchBody(labelBody()))
	r := b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/labels.pdf", b.token, nil)
	wantError(t, r, http.StatusAccepted, "label_pending")
	buyGate.open()
	waitForBatch(t, b, d.ID)
	wantStatus(t, b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/labels.pdf", b.token, nil), http.StatusOK)
}

// A batch counts once against its own group (burst 5), whatever its size.
func TestBatchesHaveTheirOwnRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *app.Config) {
		c.RateLimits.Limits = map[server.Group]server.RateLimit{server.GroupBatches: {Rate: 0.001, Burst: 2}}
	})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			r, _ := b.send("POST", "/api/v1/batches", b.token, map[string]any{"shipments": []any{}})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("status %d, want 422", r.Status)
			}
		})
	}
	wg.Wait()
	wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(labelBody())), http.StatusTooManyRequests, "rate_limited")
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody()), http.StatusAccepted)
}

// An item's unknown field and a NUL in an item are refused like a create's,
// naming the item.
func TestBatchItemFieldsAreCheckedLikeACreate(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	typo := labelBody()
	typo["toAddress"].(map[string]any)["stret1"] = "1 Main St"
	m := wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(labelBody(), typo)), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "shipments.1.toAddress.stret1" {
		t.Errorf("field = %v, want shipments.1.toAddress.stret1", m["field"])
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(labelBody(withToName("Ada\x00")))), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "shipments.0.toAddress.name" {
		t.Errorf("field = %v, want shipments.0.toAddress.name", m["field"])
	}
	wantError(t, b.doT(t, "POST", "/api/v1/batches", b.token, map[string]any{"shipments": []any{}}), http.StatusUnprocessableEntity, "invalid_field")
}

// A batch whose every item failed has no label to print: its merged
// document is 409 batch_has_no_labels with the reason, not a PDF of no
// pages (which PDF readers refuse) nor an empty ZPL stream, and the batch
// offers no labelsUrl. A batch whose labels were all refunded since is
// alike.
func TestBatchWithoutLabelsHasNoDocument(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	for _, format := range []string{"pdf", "zpl"} {
		body := batchBody(labelBody(withToName("Fail Purchase")), labelBody(withToName("Fail Purchase")))
		body["labelFormat"] = format
		d := waitForBatch(t, b, createBatch(t, b, body).ID)
		if d.Counts.Failed != 2 || d.LabelsURL != "" {
			t.Errorf("%s: batch %+v, want two failed items and no labelsUrl", format, d)
		}
		m := wantError(t, b.do("GET", "/api/v1/batches/"+d.ID+"/labels."+format, b.token, nil), http.StatusConflict, "batch_has_no_labels")
		if msg := m["error"].(string); !strings.Contains(msg, "2 failed") {
			t.Errorf("%s: the refusal does not say why: %s", format, msg)
		}
	}

	d := waitForBatch(t, b, createBatch(t, b, batchBody(labelBody())).ID)
	id := func() string {
		var list batchShipmentList
		b.do("GET", "/api/v1/batches/"+d.ID+"/shipments", b.token, nil).Decode(t, &list)
		return list.Data[0].ID
	}()
	wantStatus(t, b.do("POST", "/api/v1/labels/"+id+"/refund", b.token, nil), http.StatusAccepted)
	waitForStatus(t, b, b.token, id, "voided")
	m := wantError(t, b.do("GET", "/api/v1/batches/"+d.ID+"/labels.pdf", b.token, nil), http.StatusConflict, "batch_has_no_labels")
	if msg := m["error"].(string); !strings.Contains(msg, "1 refunded") {
		t.Errorf("the refusal of a refunded batch does not say why: %s", msg)
	}
}
