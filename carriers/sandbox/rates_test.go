package sandbox_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

func TestRatesDeterministic(t *testing.T) {
	t.Parallel()
	shipments := map[string]carriers.Shipment{
		"domestic": domestic(),
		"domestic with options": func() carriers.Shipment {
			s := domestic()
			s.Parcel = carriers.Parcel{LengthIn: 14, WidthIn: 10, HeightIn: 8, WeightOz: 70}
			s.Options.SignatureConfirmation = true
			s.To.Residential = true
			return s
		}(),
		"international": {From: sf(), To: london(), Parcel: carriers.Parcel{WeightOz: 24}, Customs: customs()},
	}
	for name, s := range shipments {
		for _, cn := range carrierNames {
			t.Run(name+"/"+cn, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				c := carrierNamed(t, newCarriers(), cn)
				first, err := c.Rates(ctx, s)
				if err != nil {
					t.Fatalf("Rates: %v", err)
				}
				if len(first) == 0 {
					t.Fatal("Rates returned no rates")
				}
				again, err := c.Rates(ctx, s)
				if err != nil {
					t.Fatalf("Rates again: %v", err)
				}
				// A separate instance has no shared state to lean on.
				other, err := carrierNamed(t, newCarriers(), cn).Rates(ctx, s)
				if err != nil {
					t.Fatalf("Rates on new instance: %v", err)
				}
				if diff := cmp.Diff(first, again); diff != "" {
					t.Errorf("second call differs (-first +second):\n%s", diff)
				}
				if diff := cmp.Diff(first, other); diff != "" {
					t.Errorf("new instance differs (-first +other):\n%s", diff)
				}
				for _, r := range first {
					if r.Carrier != cn || r.Currency != "USD" || r.CarrierRateCents <= 0 || r.EstimatedDays <= 0 {
						t.Errorf("implausible rate %+v", r)
					}
					if r.Service == "" || strings.ContainsAny(r.Service, " \t") {
						t.Errorf("service %q is not a stable identifier", r.Service)
					}
					if !slices.Contains(carriers.Categories(), r.ServiceCategory) {
						t.Errorf("rate %s has unknown category %q", r.Service, r.ServiceCategory)
					}
				}
			})
		}
	}
}

func TestRatesGrowWithWeight(t *testing.T) {
	t.Parallel()
	// One weight per pound bracket, since most services round up to pounds.
	weights := []float64{16, 32, 80, 320, 1000}
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), cn)
			prev := map[string]int64{}
			for _, w := range weights {
				s := domestic()
				s.Parcel.WeightOz = w
				rs, err := c.Rates(context.Background(), s)
				if err != nil {
					t.Fatalf("Rates(%g oz): %v", w, err)
				}
				for _, r := range rs {
					if p, ok := prev[r.Service]; ok && r.CarrierRateCents <= p {
						t.Errorf("%s: %g oz costs %d, not more than the lighter parcel's %d", r.Service, w, r.CarrierRateCents, p)
					}
					prev[r.Service] = r.CarrierRateCents
				}
			}
		})
	}
}

func TestRatesGrowWithZone(t *testing.T) {
	t.Parallel()
	// Destinations from New York (ZIP3 101) ordered by distance, one per zone.
	zips := []string{"10120", "10601", "14201", "22201", "30301", "45201", "60601", "94105"}
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), cn)
			var prev map[string]carriers.Rate
			var first map[string]carriers.Rate
			for _, zip := range zips {
				s := carriers.Shipment{From: nyc(), To: sf(), Parcel: carriers.Parcel{WeightOz: 40}}
				s.To.Zip = zip
				rs, err := c.Rates(context.Background(), s)
				if err != nil {
					t.Fatalf("Rates(to %s): %v", zip, err)
				}
				cur := rateByService(rs)
				for svc, r := range cur {
					if p, ok := prev[svc]; ok {
						if r.CarrierRateCents <= p.CarrierRateCents {
							t.Errorf("%s to %s costs %d, not more than the nearer zone's %d", svc, zip, r.CarrierRateCents, p.CarrierRateCents)
						}
						if r.EstimatedDays < p.EstimatedDays {
							t.Errorf("%s to %s takes %d days, fewer than the nearer zone's %d", svc, zip, r.EstimatedDays, p.EstimatedDays)
						}
					}
				}
				if first == nil {
					first = cur
				}
				prev = cur
			}
			// Ground services must actually slow down across the country.
			for svc, r := range prev {
				if r.ServiceCategory == carriers.CategoryEconomy && r.EstimatedDays <= first[svc].EstimatedDays {
					t.Errorf("%s: cross-country %d days, local %d days; want slower", svc, r.EstimatedDays, first[svc].EstimatedDays)
				}
			}
		})
	}
}

func TestRatesRoundUpWeight(t *testing.T) {
	t.Parallel()
	price := func(t *testing.T, cn, svc string, oz float64) int64 {
		t.Helper()
		s := domestic()
		s.Parcel.WeightOz = oz
		rs, err := carrierNamed(t, newCarriers(), cn).Rates(context.Background(), s)
		if err != nil {
			t.Fatalf("Rates: %v", err)
		}
		r, ok := rateByService(rs)[svc]
		if !ok {
			t.Fatalf("no %s %s rate", cn, svc)
		}
		return r.CarrierRateCents
	}
	tests := []struct {
		name      string
		carrier   string
		service   string
		lighter   float64
		heavier   float64
		samePrice bool
	}{
		{"pound rated: 4 oz billed as 1 lb", sandbox.CarrierUSPS, "Priority", 4, 16, true},
		{"pound rated: 16.5 oz billed as 2 lb", sandbox.CarrierUSPS, "Priority", 16.5, 32, true},
		{"pound rated: crossing a pound costs more", sandbox.CarrierUPS, "Ground", 32, 33, false},
		{"ounce rated: USPS Ground Advantage prices each ounce", sandbox.CarrierUSPS, "GroundAdvantage", 4, 12, false},
		{"ounce rated: part ounce rounds up", sandbox.CarrierUSPS, "GroundAdvantage", 4.2, 5, true},
		{"ounce rated: 15.5 oz meets the 1 lb price", sandbox.CarrierUSPS, "GroundAdvantage", 15.5, 16, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lo, hi := price(t, tt.carrier, tt.service, tt.lighter), price(t, tt.carrier, tt.service, tt.heavier)
			if tt.samePrice && lo != hi {
				t.Errorf("%g oz costs %d, %g oz costs %d; want equal", tt.lighter, lo, tt.heavier, hi)
			}
			if !tt.samePrice && lo >= hi {
				t.Errorf("%g oz costs %d, %g oz costs %d; want the heavier dearer", tt.lighter, lo, tt.heavier, hi)
			}
		})
	}
}

func TestRatesUseDimensionalWeight(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), cn)
			rates := func(p carriers.Parcel) []carriers.Rate {
				s := domestic()
				s.Parcel = p
				rs, err := c.Rates(context.Background(), s)
				if err != nil {
					t.Fatalf("Rates(%+v): %v", p, err)
				}
				return rs
			}
			// 12x12x12 in = 12.43 lb dimensional, billed as 13 lb.
			bulky := rates(carriers.Parcel{LengthIn: 12, WidthIn: 12, HeightIn: 12, WeightOz: 16})
			heavy := rates(carriers.Parcel{WeightOz: 13 * 16})
			light := rates(carriers.Parcel{WeightOz: 16})
			if diff := cmp.Diff(heavy, bulky); diff != "" {
				t.Errorf("bulky 1 lb box should price as 13 lb (-13 lb +bulky):\n%s", diff)
			}
			if bulky[0].CarrierRateCents <= light[0].CarrierRateCents {
				t.Errorf("bulky box %d cents, same weight without dimensions %d cents; want bulky dearer",
					bulky[0].CarrierRateCents, light[0].CarrierRateCents)
			}
			// A dense box is billed on its actual weight.
			dense := rates(carriers.Parcel{LengthIn: 4, WidthIn: 4, HeightIn: 4, WeightOz: 16})
			if diff := cmp.Diff(light, dense); diff != "" {
				t.Errorf("dense box should price as its actual weight (-actual +dense):\n%s", diff)
			}
		})
	}
}

func TestRatesSurcharges(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), cn)
			base, err := c.Rates(context.Background(), domestic())
			if err != nil {
				t.Fatal(err)
			}
			s := domestic()
			s.Options.SignatureConfirmation = true
			signed, err := c.Rates(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range base {
				if signed[i].CarrierRateCents <= base[i].CarrierRateCents {
					t.Errorf("%s: signature confirmation adds nothing (%d vs %d)", base[i].Service, signed[i].CarrierRateCents, base[i].CarrierRateCents)
				}
			}
		})
	}
}

func TestEveryCategoryOffered(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range newCarriers() {
		rs, err := c.Rates(context.Background(), domestic())
		if err != nil {
			t.Fatalf("%s Rates: %v", c.Name(), err)
		}
		byCat := map[string]carriers.Rate{}
		for _, r := range rs {
			seen[r.ServiceCategory] = true
			byCat[r.ServiceCategory] = r
		}
		// Faster tiers must not promise later delivery than slower ones.
		prevDays := 0
		for _, cat := range carriers.Categories() {
			r, ok := byCat[cat]
			if !ok {
				continue
			}
			if prevDays != 0 && r.EstimatedDays > prevDays {
				t.Errorf("%s %s (%s) takes %d days, slower than a slower tier's %d", c.Name(), r.Service, cat, r.EstimatedDays, prevDays)
			}
			prevDays = r.EstimatedDays
		}
	}
	var got []string
	for _, cat := range carriers.Categories() {
		if seen[cat] {
			got = append(got, cat)
		}
	}
	if diff := cmp.Diff(carriers.Categories(), got); diff != "" {
		t.Errorf("categories offered across carriers (-want +got):\n%s", diff)
	}
}

func TestInternational(t *testing.T) {
	t.Parallel()
	wantServices := map[string][]string{
		sandbox.CarrierUSPS:  {"FirstClassPackageInternational", "PriorityMailInternational", "PriorityMailExpressInternational"},
		sandbox.CarrierUPS:   {"WorldwideExpedited", "WorldwideSaver"},
		sandbox.CarrierFedEx: {"InternationalEconomy", "InternationalPriority"},
	}
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := carrierNamed(t, newCarriers(), cn)

			s := carriers.Shipment{From: sf(), To: london(), Parcel: carriers.Parcel{WeightOz: 24}}
			rs, err := c.Rates(ctx, s)
			if !errors.Is(err, carriers.ErrCustomsRequired) {
				t.Fatalf("Rates without customs = %v, %v; want ErrCustomsRequired", rs, err)
			}

			s.Customs = customs()
			rs, err = c.Rates(ctx, s)
			if err != nil {
				t.Fatalf("Rates with customs: %v", err)
			}
			var got []string
			for _, r := range rs {
				got = append(got, r.Service)
			}
			if diff := cmp.Diff(wantServices[cn], got); diff != "" {
				t.Errorf("international services (-want +got):\n%s", diff)
			}

			// One flat international zone: the destination within or across
			// countries does not change the price.
			s2 := s
			s2.To = carriers.Address{Name: "Ken", Street1: "1 Chome", City: "Tokyo", Zip: "100-0001", Country: "JP"}
			rs2, err := c.Rates(ctx, s2)
			if err != nil {
				t.Fatalf("Rates to JP: %v", err)
			}
			if diff := cmp.Diff(rs, rs2); diff != "" {
				t.Errorf("international price depends on destination (-GB +JP):\n%s", diff)
			}

			s3 := s
			s3.Parcel.WeightOz = 48
			rs3, err := c.Rates(ctx, s3)
			if err != nil {
				t.Fatalf("Rates 3 lb: %v", err)
			}
			heavier := rateByService(rs3)
			for _, r := range rs {
				if heavier[r.Service].CarrierRateCents <= r.CarrierRateCents {
					t.Errorf("%s: 3 lb costs %d, not more than 1.5 lb's %d", r.Service, heavier[r.Service].CarrierRateCents, r.CarrierRateCents)
				}
			}
		})
	}
}

func TestRatesRejectsInvalidWeight(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			s := domestic()
			s.Parcel.WeightOz = 0
			_, err := carrierNamed(t, newCarriers(), cn).Rates(context.Background(), s)
			if !errors.Is(err, carriers.ErrInvalidShipment) {
				t.Errorf("Rates(0 oz) error = %v, want ErrInvalidShipment", err)
			}
		})
	}
}

func TestRatesOmitsServicesOverWeightLimit(t *testing.T) {
	t.Parallel()
	s := carriers.Shipment{From: sf(), To: london(), Parcel: carriers.Parcel{WeightOz: 5 * 16}, Customs: customs()}
	rs, err := carrierNamed(t, newCarriers(), sandbox.CarrierUSPS).Rates(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rateByService(rs)["FirstClassPackageInternational"]; ok {
		t.Error("First-Class Package International quoted for a 5 lb parcel; its limit is 4 lb")
	}
	if len(rs) == 0 {
		t.Error("heavier services should still quote")
	}
}

func TestRatesCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range newCarriers() {
		if _, err := c.Rates(ctx, domestic()); !errors.Is(err, context.Canceled) {
			t.Errorf("%s Rates with cancelled context: %v", c.Name(), err)
		}
	}
}
