package sandbox

import "github.com/shipd-dev/shipd/carriers"

// DutyRatePercent is the sandbox's landed cost of a DDP shipment: duties
// and taxes of 15% of the declared value, whatever the destination and the
// goods (the live carriers price each HS number and country; a flat rate
// keeps the sandbox's answers predictable to test against). Documents pay
// none.
const DutyRatePercent = 15

// duties is what a DDP shipment's rate adds for the destination's duties
// and taxes, and whether the carrier ships it DDP at all: the sandbox
// USPS does not, as USPS sells no delivered-duty-paid service.
func (c *carrier) duties(s carriers.Shipment) (int64, bool) {
	if !s.Customs.DDP() || !carriers.CustomsRequired(s.From, s.To) {
		return 0, true
	}
	if !c.t.Capabilities.Has(carriers.CapLandedCost) {
		return 0, false
	}
	if s.Customs.ContentsType == carriers.ContentsDocuments {
		return 0, true
	}
	v := s.Customs.TotalValueCents()
	return (v*DutyRatePercent + 99) / 100, true
}
