package dhlparcelde

import (
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one DHL Paket product as shipd sells it.
type service struct {
	// name is shipd's service name; code the Shipping API's product;
	// procedure (Verfahren) the 11th and 12th character of the billing
	// number it is booked on.
	name, code, procedure string
	category              string
	// route is where it goes: within Germany, from Germany to the EU's
	// customs union only (Europaket), or abroad.
	route route
	// maxGrams and maxCm bound a parcel: its weight, and its sides (the
	// longest first; 0: none).
	maxGrams int
	maxCm    [3]float64
	// days, daysEU and daysWorld are the transit days a rate estimates:
	// within Germany, between Germany and the EU's customs union, and
	// across a customs border.
	days, daysEU, daysWorld int
}

type route int

const (
	domestic route = iota
	toEU
	abroad
)

// services are DHL Paket's products from Germany: the Shipping API's
// Product enum (V62WP, Warenpost, is V62KP, Kleinpaket, since 1.1.2025)
// with DHL's published limits (dhl.de, "Paket", "Kleinpaket", "Europaket",
// "Paket International", "Warenpost International") and transit times (a
// working day or two within Germany; international ones by destination).
var services = []service{
	{name: "Paket", code: "V01PAK", procedure: "01", category: carriers.CategoryStandard, route: domestic,
		maxGrams: maxGrams, maxCm: [3]float64{120, 60, 60}, days: 2},
	{name: "Kleinpaket", code: "V62KP", procedure: "62", category: carriers.CategoryEconomy, route: domestic,
		maxGrams: 1000, maxCm: [3]float64{35, 25, 8}, days: 2},
	{name: "Europaket", code: "V54EPAK", procedure: "54", category: carriers.CategoryStandard, route: toEU,
		maxGrams: maxGrams, maxCm: [3]float64{120, 60, 60}, daysEU: 4},
	{name: "PaketInternational", code: "V53WPAK", procedure: "53", category: carriers.CategoryStandard, route: abroad,
		maxGrams: maxGrams, maxCm: [3]float64{120, 60, 60}, daysEU: 5, daysWorld: 10},
	{name: "WarenpostInternational", code: "V66WPI", procedure: "66", category: carriers.CategoryEconomy, route: abroad,
		maxGrams: 1000, maxCm: [3]float64{35.3, 25, 10}, daysEU: 6, daysWorld: 12},
}

// returnService is DHL Retoure, a return label of the Returns API: the
// customer drops the parcel off and the shipper pays when it is used.
var returnService = service{name: "Retoure", category: carriers.CategoryStandard, maxGrams: maxGrams,
	maxCm: [3]float64{120, 60, 60}, days: 2, daysEU: 5, daysWorld: 7}

// serviceByName finds a service by shipd's name, in any letter case.
func serviceByName(name string) (service, bool) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, returnService.name) {
		return returnService, true
	}
	i := slices.IndexFunc(services, func(s service) bool { return strings.EqualFold(s.name, name) })
	if i < 0 {
		return service{}, false
	}
	return services[i], true
}

// ProductCode is the Parcel DE Shipping API's code of a service ("V01PAK"
// for Paket), "" for none.
func ProductCode(name string) string {
	s, _ := serviceByName(name)
	return s.code
}

// serves reports whether the service takes the shipment: its route and
// its limits.
func (s service) serves(sh carriers.Shipment) bool {
	to := carriers.NormalizeCountry(sh.To.Country)
	switch s.route {
	case domestic:
		if to != "DE" {
			return false
		}
	case toEU:
		if to == "DE" || !carriers.InEUCustomsUnion(to) || carriers.CustomsRequired(sh.From, sh.To) {
			return false
		}
	case abroad:
		if to == "DE" {
			return false
		}
	}
	return s.fits(sh.Parcel)
}

// fits reports whether a parcel is within the service's weight and size.
func (s service) fits(p carriers.Parcel) bool {
	m := carriers.MetricOf(p)
	if g := grams(p); g <= 0 || g > s.maxGrams {
		return false
	}
	sides := []float64{m.LengthCm, m.WidthCm, m.HeightCm}
	slices.SortFunc(sides, func(a, b float64) int { return -cmpFloat(a, b) })
	for i, side := range sides {
		if s.maxCm[i] > 0 && side > s.maxCm[i] {
			return false
		}
	}
	return true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// transitDays are the days the service takes for the shipment.
func (s service) transitDays(sh carriers.Shipment) int {
	switch {
	case !carriers.IsInternational(sh.From, sh.To):
		return s.days
	case carriers.CustomsRequired(sh.From, sh.To):
		return s.daysWorld
	}
	return s.daysEU
}

// billingNumber is the billing number a product is booked on: the
// account's EKP and participation around the product's procedure ("Digit
// 11 and digit 12 must correspondent to the number of the product").
func (c *Carrier) billingNumber(s service) string {
	return c.ekp + s.procedure + c.participation
}
