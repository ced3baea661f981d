package server_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
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
