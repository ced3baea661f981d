package dpd

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one of shipd's DPD services: a META-API group product code.
type service struct {
	name, code, category string
}

// services are the products shipd sells, by the META-API's group product
// codes (customer documentation v1.2, "Product mapping"; the META-API maps
// them to each BU's own): 101 D, DPD CLASSIC; 350 AM0, Express 8:30; 225
// AM2, Express 12:00; 155 PM2, Express 18:00; 302 IE2, International
// Express. CHR FR, SEUR and DPD UK take their own codes for domestic
// flows (the documentation's footnote); ask the BU.
var services = []service{
	{"Classic", "101", carriers.CategoryStandard},
	{"Express830", "350", carriers.CategoryOvernight},
	{"Express12", "225", carriers.CategoryExpress},
	{"Express18", "155", carriers.CategoryExpress},
	{"InternationalExpress", "302", carriers.CategoryExpress},
}

// serviceByName is the service named name or coded so (any case).
func serviceByName(name string) (service, bool) {
	name = strings.TrimSpace(name)
	for _, s := range services {
		if strings.EqualFold(s.name, name) || s.code == name {
			return s, true
		}
	}
	return service{}, false
}

// ProductCode is the META-API's product code of a service ("101" for
// Classic), "" for none.
func ProductCode(name string) string {
	s, _ := serviceByName(name)
	return s.code
}

// terms are a service's transit time and limits on a route: the sandbox
// twin's tariff, the one table of them (DPD publishes no transit API), so
// that test and live mode quote the same.
type terms struct {
	days        int
	guaranteed  bool
	maxWeightOz float64
	maxLengthCm float64
}

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
// one shipment (CapMultiPiece): every product does, numberOfParcels and a
// parcel each ("MPS" in the customer documentation).
func (*Carrier) MultiPieceService(name string) bool {
	_, ok := serviceByName(name)
	return ok
}
