package dhlexpress

import (
	"context"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

// TestGoldenRequests sends each flow's request to the fake (which holds it
// to DHL's document) and compares the body sent with its golden file:
// domestic, within the EU, from the US to the EU with DDP (its landed cost
// and its paperless invoice), multi-piece and a return.
func TestGoldenRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, ref string
		s         carriers.Shipment
		service   string
		currency  string
		golden    map[string]string // fake operation → golden file
		labelSize carriers.LabelSize
		format    carriers.LabelFormat
	}{
		{"domestic", "shp_0123456789abcdef01234501", domestic(), "DomesticExpress", "EUR",
			map[string]string{dhlexpressfake.OpRates: "rate_domestic.json", dhlexpressfake.OpShip: "ship_domestic.json"}, "", ""},
		{"within the EU", "shp_0123456789abcdef01234502", withinEU(), "ExpressWorldwideEU", "EUR",
			map[string]string{dhlexpressfake.OpRates: "rate_eu.json", dhlexpressfake.OpShip: "ship_eu.json"}, carriers.LabelA4, ""},
		{"US to the EU, DDP, paperless", "shp_0123456789abcdef01234503", usToEUDDP(), "ExpressWorldwide", "USD",
			map[string]string{dhlexpressfake.OpRates: "rate_us_eu_ddp.json", dhlexpressfake.OpLandedCost: "landed_cost_us_eu.json",
				dhlexpressfake.OpShip: "ship_us_eu_ddp.json"}, "", carriers.LabelZPL},
		{"multi-piece", "shp_0123456789abcdef01234504", threePieces(), "EconomySelect", "EUR",
			map[string]string{dhlexpressfake.OpRates: "rate_pieces.json", dhlexpressfake.OpShip: "ship_pieces.json"}, carriers.LabelA6, ""},
		{"return", "shp_0123456789abcdef01234505", returned(), "ExpressWorldwideEU", "EUR",
			map[string]string{dhlexpressfake.OpShip: "ship_return.json"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := newTestCarrier(t)
			if _, ok := tc.golden[dhlexpressfake.OpRates]; ok {
				rates, err := c.Rates(ctx, tc.s)
				if err != nil {
					t.Fatal(err)
				}
				if !hasService(rates, tc.service) {
					t.Fatalf("rates %+v lack %s", rates, tc.service)
				}
			}
			req := buyRequest(tc.ref, tc.s, tc.service, tc.currency)
			req.LabelSize, req.LabelFormat = tc.labelSize, tc.format
			if _, err := c.Buy(ctx, req); err != nil {
				t.Fatal(err)
			}
			for op, file := range tc.golden {
				checkGolden(t, file, fake.LastRequest(op))
			}
		})
	}
}

func hasService(rates []carriers.Rate, service string) bool {
	for _, r := range rates {
		if r.Service == service {
			return true
		}
	}
	return false
}

// The pickup's golden request.
func TestGoldenPickup(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	if _, err := c.SchedulePickup(context.Background(), pickupAt(berlin)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "pickup.json", fake.LastRequest(dhlexpressfake.OpPickup))
}
