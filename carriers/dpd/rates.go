package dpd

import (
	"context"

	"github.com/shipd-dev/shipd/carriers"
)

// Rates answers the DPD products sold on the shipment's route, unpriced:
// DPD has no rating API, and a rate sheet prices them (WithRateSheet).
// Nothing is asked of DPD: the META-API has no operation that says what a
// route allows, so the products are the sandbox twin's, from the
// business unit's country (a BU ships from its own), within their limits
// (31.5 kg, 175 cm along the longest side).
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.Return || !c.shipsFrom(s.From) {
		return nil, nil
	}
	international := carriers.IsInternational(s.From, s.To)
	var out []carriers.Rate
	var refused []carriers.LimitRefusal
	for _, svc := range services {
		t, sold := termsOf(svc, international)
		if !sold {
			continue
		}
		if r := t.refusal(svc.name, s); r != nil {
			refused = append(refused, *r)
			continue
		}
		out = append(out, carriers.Rate{Carrier: carrierName, Service: svc.name, ServiceCategory: svc.category,
			EstimatedDays: t.days, Guaranteed: t.guaranteed, ProductCode: svc.code, Unpriced: true})
	}
	if len(out) == 0 && len(refused) > 0 {
		// Every product DPD sells on the route refused the parcel past a
		// limit: say which, as the sandbox twin does.
		return nil, carriers.LimitsError(carrierName, opRate, s.AllPieces()[0].Metric != nil, refused)
	}
	return out, nil
}

// shipsFrom reports whether the BU ships from a's country: its own
// country, when the documentation's table knows the BU.
func (c *Carrier) shipsFrom(a carriers.Address) bool {
	country, known := buCountries[c.buCode]
	return !known || country == carriers.NormalizeCountry(a.Country)
}
