package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// Multi-piece shipments (issue 29): several boxes under one shipment.

// withParcels replaces the body's parcel with parcels of these weights.
func withParcels(weights ...float64) func(m map[string]any) {
	return func(m map[string]any) {
		delete(m, "parcel")
		list := make([]any, len(weights))
		for i, w := range weights {
			list[i] = map[string]any{"weightOz": w, "lengthIn": 10, "widthIn": 8, "heightIn": 4}
		}
		m["parcels"] = list
	}
}

func TestMultiPieceValidation(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	cases := []struct {
		name, path  string
		body        map[string]any
		code, field string
	}{
		{"quote with both", "/api/v1/labels/quote", labelBody(func(m map[string]any) {
			m["parcels"] = []any{map[string]any{"weightOz": 16}, map[string]any{"weightOz": 20}}
		}), "invalid_field", "parcels"},
		{"create with both", "/api/v1/labels/create", labelBody(func(m map[string]any) {
			m["parcels"] = []any{map[string]any{"weightOz": 16}}
		}), "invalid_field", "parcels"},
		{"quote with neither", "/api/v1/labels/quote", labelBody(func(m map[string]any) { delete(m, "parcel") }), "missing_field", "parcel"},
		{"create with neither", "/api/v1/labels/create", labelBody(func(m map[string]any) { delete(m, "parcel") }), "missing_field", "parcel"},
		{"batch item with both", "/api/v1/batches", batchBody(labelBody(func(m map[string]any) {
			m["parcels"] = []any{map[string]any{"weightOz": 16}}
		})), "invalid_request", "shipments.0.parcels"},
		{"batch item with neither", "/api/v1/batches", batchBody(labelBody(func(m map[string]any) { delete(m, "parcel") })), "invalid_request", "shipments.0.parcel"},
		{"empty parcels", "/api/v1/labels/quote", labelBody(withParcels()), "invalid_field", "parcels"},
		{"21 parcels", "/api/v1/labels/quote", labelBody(withParcels(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)), "invalid_field", "parcels"},
		{"a piece without weight", "/api/v1/labels/quote", labelBody(func(m map[string]any) {
			delete(m, "parcel")
			m["parcels"] = []any{map[string]any{"weightOz": 16}, map[string]any{"lengthIn": 3}}
		}), "missing_field", "parcels.1.weightOz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := b.doT(t, "POST", c.path, b.token, c.body)
			m := wantError(t, r, http.StatusUnprocessableEntity, c.code)
			field := m["field"]
			if c.code == "invalid_request" {
				// A batch lists every item's problems.
				is, _ := m["issues"].([]any)
				if len(is) == 1 {
					field = is[0].(map[string]any)["path"]
				}
			}
			if field != c.field {
				t.Errorf("field = %v, want %s; body %s", m["field"], c.field, r.Body)
			}
		})
	}
}

func TestMultiPieceQuote(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)

	t.Run("only carriers that ship several pieces", func(t *testing.T) {
		t.Parallel()
		rates := quoteRates(t, b, b.token, labelBody(withParcels(16, 24, 40)))
		if len(rates) == 0 {
			t.Fatal("no rates for three pieces")
		}
		for _, r := range rates {
			if r.Carrier != "UPS" && r.Carrier != "FedEx" {
				t.Errorf("rate of %s %s for a multi-piece shipment; only UPS and FedEx ship several pieces", r.Carrier, r.Service)
			}
		}
	})

	t.Run("priced for the whole shipment", func(t *testing.T) {
		t.Parallel()
		one := func(w float64) map[string]int64 {
			out := map[string]int64{}
			for _, r := range quoteRates(t, b, b.token, labelBody(withParcels(w))) {
				out[r.Carrier+" "+r.Service] = r.CarrierRateCents
			}
			return out
		}
		a, c := one(16), one(40)
		got := map[string]int64{}
		for _, r := range quoteRates(t, b, b.token, labelBody(withParcels(16, 40))) {
			got[r.Carrier+" "+r.Service] = r.CarrierRateCents
		}
		want := map[string]int64{}
		for k := range got {
			want[k] = a[k] + c[k]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("two pieces are not priced as the sum of each alone (-want +got):\n%s", diff)
		}
	})

	t.Run("one item is a parcel", func(t *testing.T) {
		t.Parallel()
		var carriers []string
		for _, r := range quoteRates(t, b, b.token, labelBody(withParcels(16))) {
			carriers = append(carriers, r.Carrier)
		}
		var want []string
		for _, r := range quoteRates(t, b, b.token, labelBody(func(m map[string]any) {
			m["parcel"] = map[string]any{"weightOz": 16, "lengthIn": 10, "widthIn": 8, "heightIn": 4}
		})) {
			want = append(want, r.Carrier)
		}
		if diff := cmp.Diff(want, carriers); diff != "" {
			t.Errorf("parcels of one is not quoted as parcel (-want +got):\n%s", diff)
		}
	})

	t.Run("USPS selected leaves no rate", func(t *testing.T) {
		t.Parallel()
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withParcels(16, 16), withField("carrier", "USPS"), withField("service", "Priority")))
		wantError(t, r, http.StatusUnprocessableEntity, "no_matching_service")
	})
}

// piecesDoc is what a multi-piece shipment adds to a shipment.
type piecesDoc struct {
	ID             string           `json:"id"`
	Status         string           `json:"status"`
	TrackingNumber string           `json:"trackingNumber"`
	Parcels        []map[string]any `json:"parcels"`
	Packages       []struct {
		TrackingNumber string  `json:"trackingNumber"`
		WeightOz       float64 `json:"weightOz"`
	} `json:"packages"`
	TrackingEvents []struct {
		Status         string `json:"status"`
		Message        string `json:"message"`
		TrackingNumber string `json:"trackingNumber"`
	} `json:"trackingEvents"`
}

func getPieces(t *testing.T, b *bundle, id string) piecesDoc {
	t.Helper()
	var d piecesDoc
	b.doT(t, "GET", "/api/v1/labels/"+id, b.token, nil).Decode(t, &d)
	return d
}

// voidRecorder is a sandbox carrier that records the voids asked of it.
type voidRecorder struct {
	carriers.Carrier
	mu    sync.Mutex
	voids []carriers.VoidRequest
}

func (v *voidRecorder) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	v.mu.Lock()
	v.voids = append(v.voids, req)
	v.mu.Unlock()
	return v.Carrier.Void(ctx, req)
}

func (v *voidRecorder) recorded() []carriers.VoidRequest {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]carriers.VoidRequest(nil), v.voids...)
}

func TestMultiPiecePurchase(t *testing.T) {
	t.Parallel()
	// recorded is the sandbox with scans every scan and its UPS recording voids.
	recorded := func(scan time.Duration) (*voidRecorder, setupOption) {
		var ups *voidRecorder
		var test []carriers.Carrier
		for _, c := range sandbox.New(sandbox.Config{ScanInterval: scan}) {
			if c.Name() == "UPS" {
				ups = &voidRecorder{Carrier: c}
				c = ups
			}
			test = append(test, c)
		}
		return ups, withCarriers(test, nil)
	}
	_, scanning := recorded(20 * time.Millisecond)
	b := setupLabels(t, scanning)
	weights := []float64{16, 24, 40}

	t.Run("three pieces, three labels, three numbers", func(t *testing.T) {
		t.Parallel()
		c := createLabel(t, b, b.token, labelBody(withParcels(weights...), withField("carrier", "UPS"), withField("service", "Ground")))
		s := waitForStatus(t, b, b.token, c.ID, "purchased")
		d := getPieces(t, b, c.ID)
		if len(d.Parcels) != 3 || len(d.Packages) != 3 {
			t.Fatalf("parcels %d, packages %d, want 3 each: %+v", len(d.Parcels), len(d.Packages), d)
		}
		if d.Packages[0].TrackingNumber != s.str(s.TrackingNumber) {
			t.Errorf("first package %s is not the master %s", d.Packages[0].TrackingNumber, s.str(s.TrackingNumber))
		}
		seen := map[string]bool{}
		var numbers []string
		for i, p := range d.Packages {
			if p.WeightOz != weights[i] {
				t.Errorf("package %d weighs %g, want %g", i, p.WeightOz, weights[i])
			}
			if p.TrackingNumber == "" || seen[p.TrackingNumber] {
				t.Errorf("package %d tracking number %q is empty or repeated", i, p.TrackingNumber)
			}
			seen[p.TrackingNumber] = true
			numbers = append(numbers, p.TrackingNumber)
		}
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		if m := regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`).FindSubmatch(r.Body); m == nil || string(m[1]) != "3" {
			t.Errorf("page count = %s, want 3", m)
		}
		at := -1
		for _, tn := range numbers {
			i := bytes.Index(r.Body, []byte(tn))
			if i < 0 || i < at {
				t.Errorf("tracking number %s at %d, after %d: missing or pages out of order", tn, i, at)
			}
			at = i
		}
		for i := range numbers {
			if mark := fmt.Sprintf("PACKAGE %d OF 3", i+1); !bytes.Contains(r.Body, []byte(mark)) {
				t.Errorf("label PDF lacks %q", mark)
			}
		}
	})

	t.Run("zpl has a label per piece", func(t *testing.T) {
		t.Parallel()
		c := createLabel(t, b, b.token, labelBody(withParcels(weights...), withField("labelFormat", "zpl")))
		waitForStatus(t, b, b.token, c.ID, "purchased")
		d := getPieces(t, b, c.ID)
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.zpl", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		if n := bytes.Count(r.Body, []byte("^XA")); n != 3 {
			t.Errorf("ZPL has %d labels, want 3", n)
		}
		for _, p := range d.Packages {
			if !bytes.Contains(r.Body, []byte(p.TrackingNumber)) {
				t.Errorf("ZPL lacks package %s", p.TrackingNumber)
			}
		}
	})

	t.Run("png is refused", func(t *testing.T) {
		t.Parallel()
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withParcels(weights...), withField("labelFormat", "png")))
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != "labelFormat" {
			t.Errorf("field = %v, want labelFormat", m["field"])
		}
	})

	t.Run("tracking follows the master; pieces' scans name them", func(t *testing.T) {
		t.Parallel()
		c := createLabel(t, b, b.token, labelBody(withParcels(weights...), withField("carrier", "UPS"), withField("service", "Ground")))
		waitForStatus(t, b, b.token, c.ID, "purchased")
		s := waitForTracking(t, b, b.token, c.ID, "delivered")
		d := getPieces(t, b, c.ID)
		var named []string
		for _, e := range d.TrackingEvents {
			if e.TrackingNumber != "" {
				named = append(named, e.TrackingNumber)
			}
		}
		// Newest first: the third piece's scan, then the second's.
		want := []string{d.Packages[2].TrackingNumber, d.Packages[1].TrackingNumber}
		if diff := cmp.Diff(want, named); diff != "" {
			t.Errorf("scans naming a piece (-want +got):\n%s", diff)
		}
		if s.str(s.TrackingStatus) != "delivered" {
			t.Errorf("trackingStatus = %s, want delivered", s.str(s.TrackingStatus))
		}
	})

	t.Run("a refund voids every piece", func(t *testing.T) {
		t.Parallel()
		// No scan for an hour: a scanned label is not refundable, and under
		// -race 20 ms scans came before the refund.
		ups, unscanned := recorded(time.Hour)
		b := setupLabels(t, unscanned)
		c := createLabel(t, b, b.token, labelBody(withParcels(weights...), withField("carrier", "UPS"), withField("service", "Ground")))
		waitForStatus(t, b, b.token, c.ID, "purchased")
		d := getPieces(t, b, c.ID)
		wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", b.token, nil), http.StatusAccepted)
		waitForStatus(t, b, b.token, c.ID, "voided")
		var got []string
		for _, v := range ups.recorded() {
			if v.Reference == c.ID {
				got = v.Pieces
			}
		}
		var want []string
		for _, p := range d.Packages {
			want = append(want, p.TrackingNumber)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pieces of the void (-want +got):\n%s", diff)
		}
	})
}

func TestMultiPieceBatchAndReturn(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)

	t.Run("a batch item of several parcels", func(t *testing.T) {
		t.Parallel()
		d := createBatch(t, b, batchBody(labelBody(withParcels(16, 24)), labelBody()))
		waitForBatch(t, b, d.ID)
		var page batchShipmentList
		b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/shipments", b.token, nil).Decode(t, &page)
		if len(page.Data) != 2 {
			t.Fatalf("%d shipments, want 2", len(page.Data))
		}
		multi := getPieces(t, b, page.Data[0].ID)
		if len(multi.Packages) != 2 || multi.Status != "purchased" {
			t.Errorf("multi-piece item: status %s, %d packages, want purchased with 2", multi.Status, len(multi.Packages))
		}
		r := b.doT(t, "GET", "/api/v1/batches/"+d.ID+"/labels.pdf", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		if m := regexp.MustCompile(`/Type /Pages /Count (\d+)`).FindSubmatch(r.Body); m == nil || string(m[1]) != "3" {
			t.Errorf("batch labels page count = %s, want 3 (two pieces and one parcel)", m)
		}
	})

	t.Run("a png batch of several parcels is refused", func(t *testing.T) {
		t.Parallel()
		body := batchBody(labelBody(), labelBody(withParcels(16, 24)))
		body["labelFormat"] = "png"
		r := b.doT(t, "POST", "/api/v1/batches", b.token, body)
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_request")
		is, _ := m["issues"].([]any)
		if len(is) != 1 || is[0].(map[string]any)["path"] != "shipments.1.parcels" {
			t.Errorf("issues %v, want shipments.1.parcels", m["issues"])
		}
	})

	t.Run("the return of several parcels takes them", func(t *testing.T) {
		t.Parallel()
		c := createLabel(t, b, b.token, labelBody(withParcels(16, 24, 40)))
		waitForStatus(t, b, b.token, c.ID, "purchased")
		ret := createLabel(t, b, b.token, map[string]any{"returnOf": c.ID})
		waitForStatus(t, b, b.token, ret.ID, "purchased")
		d := getPieces(t, b, ret.ID)
		if len(d.Parcels) != 3 || len(d.Packages) != 3 {
			t.Errorf("return has %d parcels and %d packages, want 3 each", len(d.Parcels), len(d.Packages))
		}
	})
}
