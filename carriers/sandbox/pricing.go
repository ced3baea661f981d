package sandbox

import (
	"math"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one sandbox service with its tariff (carriers.SandboxService).
type service = carriers.SandboxService

// maxZone is also used when a ZIP cannot be read, so an unknown distance
// is never quoted cheaper than the real one could be.
const maxZone = 8

// isSandboxNumber reports whether tn has the form of t's sandbox numbers:
// its prefix and its count of digits.
func isSandboxNumber(t *carriers.SandboxTariff, tn string) bool {
	rest, ok := strings.CutPrefix(tn, t.TrackingPrefix)
	if !ok || len(rest) != t.TrackingDigits {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// zone approximates the carriers' distance zones (1 = local, 8 = farthest)
// from the first three digits of the ZIP codes, which follow geography
// roughly east to west across the US.
func zone(fromZip, toZip string) int {
	a, okA := zip3(fromZip)
	b, okB := zip3(toZip)
	if !okA || !okB {
		return maxZone
	}
	d := a - b
	if d < 0 {
		d = -d
	}
	switch {
	case d == 0:
		return 1
	case d <= 25:
		return 2
	case d <= 75:
		return 3
	case d <= 150:
		return 4
	case d <= 250:
		return 5
	case d <= 400:
		return 6
	case d <= 600:
		return 7
	default:
		return maxZone
	}
}

func zip3(zip string) (int, bool) {
	zip = strings.TrimSpace(zip)
	if len(zip) < 3 {
		return 0, false
	}
	n := 0
	for _, r := range zip[:3] {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, true
}

// ceilUnits rounds a weight up to whole units the way carriers do, after
// shaving float noise so that e.g. a dimensional weight of exactly 3 lb
// computed as 3.0000000001 is not billed as 4.
func ceilUnits(x float64) int64 {
	return int64(math.Ceil(x - 1e-9))
}

// price is the charge in cents for a billable weight and zone, before
// per-label surcharges.
func price(s service, billableOz float64, z int) int64 {
	zf := int64(z - 1)
	if s.PerKg > 0 {
		kg := ceilUnits(billableOz * carriers.GramsPerOunce / 1000)
		return s.Base + s.PerKg*kg + s.ZoneStep*zf + s.ZonePerLb*zf*kg
	}
	if oz := ceilUnits(billableOz); s.OunceRated && oz < 16 {
		// Ounce pricing meets the 1 lb price at 16 oz so the tariff has no
		// step down when crossing a pound.
		return s.Base + s.ZoneStep*zf + (s.PerLb+s.ZonePerLb*zf)*oz/16
	}
	lbs := ceilUnits(billableOz / 16)
	return s.Base + s.PerLb*lbs + s.ZoneStep*zf + s.ZonePerLb*zf*lbs
}

// days is a service's delivery days in zone z of a zoning of top zones.
func days(s service, z, top int) int {
	return s.MinDays + (z-1)*(s.MaxDays-s.MinDays)/max(top-1, 1)
}

// europeZones is the top zone of carriers.ZonesEurope.
const europeZones = 4

// zone is the shipment's zone in the tariff's zoning.
func (c *carrier) zone(s carriers.Shipment) int {
	if c.t.Zoning == carriers.ZonesEurope {
		return europeZone(s.From, s.To)
	}
	if carriers.IsInternational(s.From, s.To) {
		return 1 // one flat zone
	}
	return zone(s.From.Zip, s.To.Zip)
}

// maxZone is the top zone of the tariff's zoning.
func (c *carrier) maxZone() int {
	if c.t.Zoning == carriers.ZonesEurope {
		return europeZones
	}
	return maxZone
}

// europe are the countries of Europe outside the EU customs union that
// carriers.ZonesEurope prices as its zone 3.
var europe = map[string]bool{
	"AD": true, "AL": true, "BA": true, "BY": true, "CH": true, "FO": true, "GB": true, "GI": true,
	"IS": true, "LI": true, "MD": true, "ME": true, "MK": true, "NO": true, "RS": true, "SM": true,
	"TR": true, "UA": true, "VA": true, "XK": true,
}

// europeZone: 1 within a country, 2 within the EU customs union, 3 to or
// from the rest of Europe, 4 the rest of the world.
func europeZone(from, to carriers.Address) int {
	f, t := carriers.NormalizeCountry(from.Country), carriers.NormalizeCountry(to.Country)
	inEurope := func(c string) bool { return carriers.InEUCustomsUnion(c) || europe[c] }
	switch {
	case f == t:
		return 1
	case carriers.InEUCustomsUnion(f) && carriers.InEUCustomsUnion(t):
		return 2
	case inEurope(f) && inEurope(t):
		return 3
	}
	return europeZones
}

// billableOz is what the tariff charges a parcel for: its weight, or the
// larger of it and its dimensional weight.
func (c *carrier) billableOz(p carriers.Parcel) float64 {
	if c.t.ActualWeight {
		return max(p.WeightOz, 0)
	}
	return carriers.BillableWeightOz(p)
}
