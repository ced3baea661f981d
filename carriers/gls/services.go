package gls

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one of shipd's GLS services: a ShipIT product.
type service struct {
	// name is shipd's API name; product is ShipIT's Product (the rate's
	// ProductCode, which a rate sheet may name instead).
	name, product string
	category      string
}

// services are the ShipIT products shipd sells: PARCEL (GLS's business
// parcel, at home and to the rest of Europe) and EXPRESS (next working day,
// guaranteed). FREIGHT, PHARMA and PHARMAPLUS need contracts of their own
// and are not offered.
var services = []service{
	{name: "Parcel", product: "PARCEL", category: carriers.CategoryStandard},
	{name: "Express", product: "EXPRESS", category: carriers.CategoryExpress},
}

// serviceByName is the service named name (any case).
func serviceByName(name string) (service, bool) {
	for _, s := range services {
		if strings.EqualFold(s.name, strings.TrimSpace(name)) || strings.EqualFold(s.product, strings.TrimSpace(name)) {
			return s, true
		}
	}
	return service{}, false
}

// ProductCode is ShipIT's Product of a service ("PARCEL" for Parcel), ""
// for none.
func ProductCode(name string) string {
	s, _ := serviceByName(name)
	return s.product
}

// terms are a service's transit time and limits on a route. GLS publishes
// no transit API; the days, the guarantee and the limits (40 kg, 200 cm
// along the longest side) are the sandbox twin's tariff, the one table of
// them, so that test and live mode quote the same.
type terms struct {
	days        int
	guaranteed  bool
	maxWeightOz float64
	maxLengthCm float64
}

// termsOf is s's terms for a domestic or international shipment; ok is
// false when the tariff does not sell s there.
func termsOf(s service, international bool) (terms, bool) {
	t := sandboxTariff()
	list := t.Domestic
	if international {
		list = t.International
	}
	for _, ss := range list {
		if strings.EqualFold(ss.Name, s.name) {
			return terms{days: ss.MaxDays, guaranteed: ss.Guaranteed, maxWeightOz: ss.MaxWeightOz, maxLengthCm: ss.MaxLengthCm}, true
		}
	}
	return terms{}, false
}

// fits reports whether every piece is within the terms' limits.
func (t terms) fits(s carriers.Shipment) bool { return t.refusal("", s) == nil }

// refusal is the refusal of service, on these terms, of the piece of s past
// a limit (carriers/limits.go); nil when every piece fits.
func (t terms) refusal(service string, s carriers.Shipment) *carriers.LimitRefusal {
	for _, p := range s.AllPieces() {
		m := carriers.MetricOf(p)
		longest := max(m.LengthCm, m.WidthCm, m.HeightCm)
		if t.maxWeightOz > 0 && p.WeightOz > t.maxWeightOz+1e-9 || t.maxLengthCm > 0 && longest > t.maxLengthCm+1e-9 {
			return &carriers.LimitRefusal{Service: service, MaxWeightOz: t.maxWeightOz, MaxLengthCm: t.maxLengthCm, WeightOz: p.WeightOz, LengthCm: longest}
		}
	}
	return nil
}

// MultiPieceService reports whether service ships several parcels under
// one shipment (CapMultiPiece): every ShipIT product does, a ShipmentUnit
// per parcel.
func (*Carrier) MultiPieceService(name string) bool {
	_, ok := serviceByName(name)
	return ok
}
