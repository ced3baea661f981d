package server_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A parcel in centimetres and grams is quoted as its exact imperial twin
// (1,500 g is 52.910942... oz; 30 cm is 11.811... in), bought, and shown
// back as it was sent: in grams, without weightOz.
func TestMetricParcel(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	metric := map[string]any{"weightG": 1500, "lengthCm": 30, "widthCm": 20, "heightCm": 10}
	imperial := map[string]any{"weightOz": 1500 / 28.349523125, "lengthIn": 30 / 2.54, "widthIn": 20 / 2.54, "heightIn": 10 / 2.54}
	got := quoteRates(t, b, b.token, labelBody(withField("parcel", metric)))
	want := quoteRates(t, b, b.token, labelBody(withField("parcel", imperial)))
	if len(got) == 0 {
		t.Fatal("no rates for a metric parcel")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a metric parcel's rates differ from its exact imperial twin's (-imperial +metric):\n%s", diff)
	}

	s := waitForStatus(t, b, b.token, createLabel(t, b, b.token, labelBody(withField("parcel", metric))).ID, "purchased")
	if diff := cmp.Diff(map[string]any{"weightG": 1500.0, "lengthCm": 30.0, "widthCm": 20.0, "heightCm": 10.0}, s.Parcel); diff != "" {
		t.Errorf("the shipment's parcel (-sent +shown):\n%s", diff)
	}
}

// Several pieces in grams: each package keeps its grams beside the ounces.
func TestMetricPieces(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	body := labelBody(func(m map[string]any) {
		delete(m, "parcel")
		m["parcels"] = []any{map[string]any{"weightG": 1000}, map[string]any{"weightG": 2000}}
		m["carrier"] = "UPS"
	})
	s := waitForStatus(t, b, b.token, createLabel(t, b, b.token, body).ID, "purchased")
	r := b.doT(t, "GET", "/api/v1/labels/"+s.ID, b.token, nil)
	var d struct {
		Packages []struct {
			WeightOz float64
			WeightG  *float64
		}
	}
	r.Decode(t, &d)
	if len(d.Packages) != 2 || d.Packages[1].WeightG == nil || *d.Packages[1].WeightG != 2000 || d.Packages[1].WeightOz != 2000/28.349523125 {
		t.Errorf("packages %+v, want the second of 2000 g and its exact ounces", d.Packages)
	}
}

// One system per parcel; the weight of the system used is required; the
// limits are the same in both systems.
func TestMetricParcelRules(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	quote := func(parcel any) response {
		return b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(withField("parcel", parcel)))
	}
	m := wantError(t, quote(map[string]any{"weightOz": 32, "lengthIn": 10, "weightG": 900}), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "parcel" || m["error"] != "parcel: mixes inches and ounces (lengthIn, weightOz) with centimetres and grams (weightG): give a parcel in one system" {
		t.Errorf("mixed parcel: %v", m)
	}
	for _, tc := range []struct {
		parcel map[string]any
		field  string
	}{
		{map[string]any{"lengthCm": 30, "widthCm": 20, "heightCm": 10}, "parcel.weightG"},
		{map[string]any{"lengthIn": 10}, "parcel.weightOz"},
		{map[string]any{}, "parcel"}, // an empty parcel is none
	} {
		if m := wantError(t, quote(tc.parcel), http.StatusUnprocessableEntity, "missing_field"); m["field"] != tc.field {
			t.Errorf("%v: field %v, want %s", tc.parcel, m["field"], tc.field)
		}
	}
	// 16,000 oz is 453,592.37 g (the bound of sense: the carriers' own
	// limits are below it, parcel_limits_test.go); 200 in is 508 cm.
	if m := wantError(t, quote(map[string]any{"weightG": 453592.38}), http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "parcel.weightG" {
		t.Errorf("over the weight limit in grams: %v", m)
	}
	if m := wantError(t, quote(map[string]any{"weightG": 1000, "lengthCm": 508.01}), http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "parcel.lengthCm" {
		t.Errorf("over the length limit in centimetres: %v", m)
	}
	if r := quote(map[string]any{"weightG": 1000, "lengthCm": 508}); r.Status == http.StatusUnprocessableEntity && r.JSON(t)["code"] == "invalid_field" {
		t.Errorf("508 cm, the limit, refused as invalid: %s", r.Body)
	}
	// Pieces: each by its index.
	r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(func(m map[string]any) {
		delete(m, "parcel")
		m["parcels"] = []any{map[string]any{"weightG": 1000}, map[string]any{"heightCm": 5}}
	}))
	if m := wantError(t, r, http.StatusUnprocessableEntity, "missing_field"); m["field"] != "parcels.1.weightG" {
		t.Errorf("a piece without its weight: %v", m)
	}
}

// A customs line's weight is in ounces or in grams, not both, not neither.
func TestCustomsItemInGrams(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	item := func(mod func(it map[string]any)) map[string]any {
		body := labelBody(withInternational(true))
		it := body["customs"].(map[string]any)["items"].([]any)[0].(map[string]any)
		mod(it)
		return body
	}
	if rates := quoteRates(t, b, b.token, item(func(it map[string]any) { delete(it, "weightOz"); it["weightG"] = 170 })); len(rates) == 0 {
		t.Error("no rates with a customs line in grams")
	}
	m := wantError(t, b.doT(t, "POST", "/api/v1/labels/quote", b.token, item(func(it map[string]any) { it["weightG"] = 170 })), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "customs.items.0" {
		t.Errorf("both weights: %v", m)
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/quote", b.token, item(func(it map[string]any) { delete(it, "weightOz") })), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "customs.items.0.weightOz" {
		t.Errorf("no weight: %v", m)
	}
}
