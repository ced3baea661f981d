package server_test

// A parcel past the carriers' limits (issue 43): no_rates names the limit
// each carrier refused on, in the parcel's own units, rather than nothing.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// carrierErrorDoc is an entry of carrierErrors.
type carrierErrorDoc struct {
	Carrier string `json:"carrier"`
	Kind    string `json:"kind"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// limitsOf is the refusals of a 422 no_rates by carrier, checking that the
// top-level message names each carrier's limit too.
func limitsOf(t *testing.T, r response) map[string]carrierErrorDoc {
	t.Helper()
	wantError(t, r, http.StatusUnprocessableEntity, "no_rates")
	var body struct {
		Error         string            `json:"error"`
		CarrierErrors []carrierErrorDoc `json:"carrierErrors"`
	}
	r.Decode(t, &body)
	out := map[string]carrierErrorDoc{}
	for _, e := range body.CarrierErrors {
		out[e.Carrier] = e
		if !strings.Contains(body.Error, e.Message) {
			t.Errorf("the error %q does not say %s's refusal %q", body.Error, e.Carrier, e.Message)
		}
	}
	return out
}

// wantLimits checks each carrier's refusal: kind rejected, the code, and the
// limit as the message must name it.
func wantLimits(t *testing.T, what string, got map[string]carrierErrorDoc, code string, limits map[string]string) {
	t.Helper()
	kinds, want := map[string]string{}, map[string]string{}
	for carrier, e := range got {
		kinds[carrier] = e.Kind + " " + e.Code
	}
	for carrier, limit := range limits {
		want[carrier] = "rejected " + code
		if e, ok := got[carrier]; ok && !strings.Contains(e.Message, limit) {
			t.Errorf("%s: %s's message %q does not name its limit %q", what, carrier, e.Message, limit)
		}
	}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("%s: carrierErrors (-want +got):\n%s", what, d)
	}
}

// refusalsOf is a quote's carrierErrors of refusals past a limit, by
// carrier (a euro account's quote has others: the US carriers' dollars
// do not convert without the operator's exchange rates).
func refusalsOf(q quoteDoc) map[string]carrierErrorDoc {
	out := map[string]carrierErrorDoc{}
	for _, e := range q.CarrierErrors {
		if strings.HasPrefix(e.Code, "parcel_") {
			out[e.Carrier] = carrierErrorDoc{Carrier: e.Carrier, Kind: e.Kind, Code: e.Code, Message: e.Message}
		}
	}
	return out
}

func TestNoRatesNamesEachCarriersLimit(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)

	// 200 lb from New York to Washington: USPS takes 70 lb, UPS and FedEx
	// 150 lb; named in pounds, the parcel's units, kilograms beside them.
	heavy := labelBody(withField("parcel", map[string]any{"weightOz": 200 * 16}))
	imperial := map[string]string{
		"USPS":  "at most 70 lb (31.75 kg) a parcel; this one weighs 200 lb (90.72 kg)",
		"UPS":   "at most 150 lb (68.04 kg) a parcel; this one weighs 200 lb (90.72 kg)",
		"FedEx": "at most 150 lb (68.04 kg) a parcel; this one weighs 200 lb (90.72 kg)",
	}
	for _, path := range []string{"/api/v1/labels/quote", "/api/v1/labels/create"} {
		wantLimits(t, "200 lb, "+path, limitsOf(t, b.doT(t, "POST", path, b.token, heavy)), "parcel_too_heavy", imperial)
	}

	// 80 kg within Germany: every carrier that ships from there refuses it,
	// each named in kilograms, the parcel's units.
	_, eur := b.accountIn("Kiezladen", "EUR")
	metric := map[string]string{
		"DHLParcelDE": "at most 31.5 kg (69.45 lb) a parcel; this one weighs 80 kg (176.37 lb)",
		"DPD":         "at most 31.5 kg (69.45 lb) a parcel",
		"GLS":         "at most 40 kg (88.18 lb) a parcel",
		"DHLExpress":  "at most 70 kg (154.32 lb) a parcel",
		"UPS":         "at most 68.04 kg (150 lb) a parcel",
		"FedEx":       "at most 68.04 kg (150 lb) a parcel",
	}
	wantLimits(t, "80 kg", limitsOf(t, b.doT(t, "POST", "/api/v1/labels/quote", eur,
		deBody(withField("parcel", map[string]any{"weightG": 80000, "lengthCm": 60, "widthCm": 40, "heightCm": 40})))), "parcel_too_heavy", metric)

	// Too long for the parcel carriers at home (DHL Paket and DHL Express
	// 120 cm, DPD 175 cm), within GLS's 200 cm: GLS quotes, and the others'
	// refusals are beside its rates.
	q := quoteOf(t, b, eur, deBody(withField("parcel", map[string]any{"weightG": 5000, "lengthCm": 180, "widthCm": 20, "heightCm": 20})))
	for _, r := range q.Rates {
		if r.Carrier != "GLS" && r.Carrier != "UPS" && r.Carrier != "FedEx" {
			t.Errorf("a rate of %s for a parcel of 180 cm: %+v", r.Carrier, r)
		}
	}
	wantLimits(t, "180 cm", refusalsOf(q), "parcel_too_large", map[string]string{
		"DHLParcelDE": "at most 120 cm (47.24 in) on a parcel's longest side; this one's is 180 cm (70.87 in)",
		"DHLExpress":  "at most 120 cm (47.24 in)",
		"DPD":         "at most 175 cm (68.9 in)",
	})

	// 100 lb: USPS refuses, UPS and FedEx quote; the quote says why USPS is
	// missing.
	q = quoteOf(t, b, b.token, labelBody(withField("parcel", map[string]any{"weightOz": 100 * 16})))
	if len(q.Rates) == 0 {
		t.Fatal("no rate for 100 lb")
	}
	wantLimits(t, "100 lb", refusalsOf(q), "parcel_too_heavy", map[string]string{"USPS": "at most 70 lb (31.75 kg) a parcel; this one weighs 100 lb (45.36 kg)"})
}
