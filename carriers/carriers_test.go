package carriers_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

func TestBillableWeightOz(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    carriers.Parcel
		want float64
	}{
		{"no dimensions uses actual weight", carriers.Parcel{WeightOz: 20}, 20},
		{"partial dimensions uses actual weight", carriers.Parcel{LengthIn: 30, WidthIn: 30, WeightOz: 20}, 20},
		{"small box keeps actual weight", carriers.Parcel{LengthIn: 6, WidthIn: 4, HeightIn: 2, WeightOz: 20}, 20},
		// 12*12*12 = 1728 in³ / 139 = 12.43 lb = 198.9 oz, far above 16 oz.
		{"bulky box uses dimensional weight", carriers.Parcel{LengthIn: 12, WidthIn: 12, HeightIn: 12, WeightOz: 16}, 1728.0 / 139 * 16},
		// 139 in³ is exactly 1 lb dimensional.
		{"heavy small box keeps actual weight", carriers.Parcel{LengthIn: 139, WidthIn: 1, HeightIn: 1, WeightOz: 17}, 17},
		{"exact divisor", carriers.Parcel{LengthIn: 139, WidthIn: 1, HeightIn: 1, WeightOz: 1}, 16},
		{"negative weight is never billable", carriers.Parcel{WeightOz: -3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := carriers.BillableWeightOz(tt.p)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(approx)); diff != "" {
				t.Errorf("BillableWeightOz(%+v) mismatch (-want +got):\n%s", tt.p, diff)
			}
		})
	}
}

func approx(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

func TestIsInternational(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to string
		want     bool
	}{
		{"US", "US", false},
		{"us", " US ", false},
		{"", "US", false}, // empty country means US
		{"US", "", false},
		{"US", "CA", true},
		{"GB", "US", true},
		{"DE", "FR", true},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			t.Parallel()
			got := carriers.IsInternational(carriers.Address{Country: tt.from}, carriers.Address{Country: tt.to})
			if got != tt.want {
				t.Errorf("IsInternational(%q, %q) = %v, want %v", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

// named is a Carrier stub; only Name is called by the registry.
type named struct {
	carriers.Carrier
	name string
}

func (n named) Name() string { return n.name }

func names(cs []carriers.Carrier) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name())
	}
	return out
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	test := []carriers.Carrier{named{name: "USPS"}, named{name: "UPS"}}
	reg := carriers.NewRegistry(test, nil)
	test[0] = named{name: "mutated"} // the registry must have copied the slice

	t.Run("For", func(t *testing.T) {
		t.Parallel()
		got, err := reg.For(true)
		if err != nil {
			t.Fatalf("For(test): %v", err)
		}
		if diff := cmp.Diff([]string{"USPS", "UPS"}, names(got)); diff != "" {
			t.Errorf("For(test) mismatch (-want +got):\n%s", diff)
		}
		if _, err := reg.For(false); !errors.Is(err, carriers.ErrNotConfigured) {
			t.Errorf("For(live) error = %v, want ErrNotConfigured", err)
		}
	})

	tests := []struct {
		name     string
		testMode bool
		lookup   string
		want     string
		wantErr  error
	}{
		{"exact", true, "UPS", "UPS", nil},
		{"case and spaces ignored", true, " usps ", "USPS", nil},
		{"unknown carrier", true, "DHL", "", carriers.ErrUnknownCarrier},
		{"live mode not configured", false, "UPS", "", carriers.ErrNotConfigured},
	}
	for _, tt := range tests {
		t.Run("Lookup/"+tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := reg.Lookup(tt.testMode, tt.lookup)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Lookup(%v, %q) error = %v, want %v", tt.testMode, tt.lookup, err, tt.wantErr)
			}
			if err == nil && c.Name() != tt.want {
				t.Errorf("Lookup(%v, %q) = %q, want %q", tt.testMode, tt.lookup, c.Name(), tt.want)
			}
		})
	}
}
