package carriers_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// A carrier whose every service refused the parcel names the most generous
// limit the parcel is past, in the parcel's units, or each service's own
// when no one limit explains the refusals.
func TestLimitsError(t *testing.T) {
	t.Parallel()
	kg := func(kg float64) float64 { return kg * 1000 / carriers.GramsPerOunce }
	small := func(oz, cm float64) carriers.LimitRefusal { // a 1 kg, 35 cm service
		return carriers.LimitRefusal{Service: "Kleinpaket", MaxWeightOz: kg(1), MaxLengthCm: 35, WeightOz: oz, LengthCm: cm}
	}
	big := func(oz, cm float64) carriers.LimitRefusal { // a 31.5 kg, 120 cm service
		return carriers.LimitRefusal{Service: "Paket", MaxWeightOz: kg(31.5), MaxLengthCm: 120, WeightOz: oz, LengthCm: cm}
	}
	cases := []struct {
		name     string
		metric   bool
		refusals []carriers.LimitRefusal
		code     string
		message  string
	}{
		{"too heavy for both, metric", true, []carriers.LimitRefusal{small(kg(40), 50), big(kg(40), 50)},
			carriers.CodeParcelTooHeavy, "takes at most 31.5 kg (69.45 lb) a parcel; this one weighs 40 kg (88.18 lb)"},
		{"too heavy, imperial", false, []carriers.LimitRefusal{{Service: "Ground", MaxWeightOz: 150 * 16, WeightOz: 200 * 16}},
			carriers.CodeParcelTooHeavy, "takes at most 150 lb (68.04 kg) a parcel; this one weighs 200 lb (90.72 kg)"},
		{"billable weight", false, []carriers.LimitRefusal{{Service: "Ground", MaxWeightOz: 150 * 16, WeightOz: 160 * 16, Billable: true}},
			carriers.CodeParcelTooHeavy, "takes at most 150 lb (68.04 kg) a parcel; this one has a billable weight (the larger of its weight and its dimensional weight) of 160 lb (72.57 kg)"},
		{"too long for the longest, though light", true, []carriers.LimitRefusal{small(kg(5), 150), big(kg(5), 150)},
			carriers.CodeParcelTooLarge, "takes at most 120 cm (47.24 in) on a parcel's longest side; this one's is 150 cm (59.06 in)"},
		{"too heavy and too long", true, []carriers.LimitRefusal{small(kg(40), 150), big(kg(40), 150)},
			carriers.CodeParcelTooHeavy, "takes at most 31.5 kg (69.45 lb) a parcel; this one weighs 40 kg (88.18 lb); and takes at most 120 cm (47.24 in) on a parcel's longest side; this one's is 150 cm (59.06 in)"},
		{"each service its own limit", true, []carriers.LimitRefusal{
			{Service: "Light", MaxWeightOz: kg(1), WeightOz: kg(5), LengthCm: 150},
			{Service: "Short", MaxLengthCm: 120, WeightOz: kg(5), LengthCm: 150},
			{Service: "Long", MaxWeightOz: kg(2), MaxLengthCm: 200, WeightOz: kg(5), LengthCm: 150},
		}, carriers.CodeParcelOverLimits, "no service takes this parcel: Light takes at most 1 kg (2.2 lb) a parcel; this one weighs 5 kg (11.02 lb); " +
			"Short takes at most 120 cm (47.24 in) on a parcel's longest side; this one's is 150 cm (59.06 in); Long takes at most 2 kg (4.41 lb) a parcel; this one weighs 5 kg (11.02 lb)"},
		{"grams and ounces under a kilogram and a pound", true, []carriers.LimitRefusal{{Service: "Letter", MaxWeightOz: kg(0.4), WeightOz: kg(0.75)}},
			carriers.CodeParcelTooHeavy, "takes at most 400 g (14.11 oz) a parcel; this one weighs 750 g (1.65 lb)"},
	}
	for _, c := range cases {
		e := carriers.LimitsError("DHLParcelDE", "rate", c.metric, c.refusals)
		got := struct{ Code, Message string }{e.Code, e.Message}
		if d := cmp.Diff(struct{ Code, Message string }{c.code, c.message}, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
		if !errors.Is(e, carriers.ErrRejected) || !carriers.IsLimitCode(e.Code) {
			t.Errorf("%s: %v is not a rejection past a limit", c.name, e)
		}
	}
	if carriers.LimitsError("UPS", "rate", false, nil) != nil {
		t.Error("an error without refusals")
	}
}
