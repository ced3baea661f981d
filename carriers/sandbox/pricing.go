package sandbox

import (
	"math"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one simulated carrier service with its tariff.
//
// The charge for w billable pounds in zone z is
//
//	base + perLb*w + zoneStep*(z-1) + zonePerLb*(z-1)*w
//
// which, like real tariff tables, rises with both weight and distance and
// rises faster with weight the farther the parcel travels. Integer cents keep
// the result exact and deterministic.
type service struct {
	name      string
	display   string // as printed on the label
	category  string
	base      int64
	perLb     int64
	zoneStep  int64
	zonePerLb int64
	// minDays at zone 1 grows linearly to maxDays at the farthest zone.
	minDays, maxDays int
	// guaranteed services promise their delivery date (money back).
	guaranteed bool
	// ounceRated services (USPS Ground Advantage) price parcels under a
	// pound per whole ounce instead of rounding up to a full pound, as USPS does.
	ounceRated bool
	// maxOz is the heaviest parcel the service takes; heavier parcels get no
	// rate for it instead of an error, so other services can still quote.
	maxOz float64
}

// tariff is one simulated carrier's price list and surcharges.
type tariff struct {
	name     string
	domestic []service
	// international services ignore zones: all international destinations
	// are one flat zone, priced by weight only.
	international []service
	signature     int64 // per-label signature confirmation surcharge
	residential   int64 // per-label residential delivery surcharge
	trackingCode  func(digits string) string
	trackingShape func(tn string) bool
	// capabilities are the live carrier's that the sandbox imitates beyond
	// what every sandbox carrier does: a manifest step, several pieces, a
	// landed cost.
	capabilities carriers.Capabilities
}

const (
	maxUSPSOz = 70 * 16
	maxXPOz   = 150 * 16 // UPS and FedEx
	// maxZone is also used when a ZIP cannot be read, so an unknown distance
	// is never quoted cheaper than the real one could be.
	maxZone = 8
)

func uspsTariff() tariff {
	return tariff{
		name: CarrierUSPS,
		domestic: []service{
			{name: "GroundAdvantage", display: "GROUND ADVANTAGE", category: carriers.CategoryEconomy, base: 620, perLb: 110, zoneStep: 70, zonePerLb: 25, minDays: 2, maxDays: 5, ounceRated: true, maxOz: maxUSPSOz},
			{name: "Priority", display: "PRIORITY MAIL", category: carriers.CategoryStandard, base: 850, perLb: 140, zoneStep: 95, zonePerLb: 40, minDays: 1, maxDays: 3, maxOz: maxUSPSOz},
			{name: "PriorityExpress", display: "PRIORITY MAIL EXPRESS", category: carriers.CategoryExpress, base: 2800, perLb: 280, zoneStep: 220, zonePerLb: 70, minDays: 1, maxDays: 2, guaranteed: true, maxOz: maxUSPSOz},
		},
		international: []service{
			{name: "FirstClassPackageInternational", display: "FIRST-CLASS PKG INTL", category: carriers.CategoryEconomy, base: 1450, perLb: 480, minDays: 12, maxDays: 12, maxOz: 4 * 16},
			{name: "PriorityMailInternational", display: "PRIORITY MAIL INTL", category: carriers.CategoryStandard, base: 3900, perLb: 520, minDays: 8, maxDays: 8, maxOz: maxUSPSOz},
			{name: "PriorityMailExpressInternational", display: "PRIORITY MAIL EXPRESS INTL", category: carriers.CategoryExpress, base: 5200, perLb: 610, minDays: 4, maxDays: 4, maxOz: maxUSPSOz},
		},
		signature:     365,
		capabilities:  carriers.CapManifests,
		trackingCode:  func(d string) string { return "9400SANDBOX" + d[:12] },
		trackingShape: shape("9400SANDBOX", 12),
	}
}

func upsTariff() tariff {
	return tariff{
		name: CarrierUPS,
		domestic: []service{
			{name: "Ground", display: "GROUND", category: carriers.CategoryEconomy, base: 1050, perLb: 115, zoneStep: 85, zonePerLb: 30, minDays: 1, maxDays: 5, maxOz: maxXPOz},
			{name: "3DaySelect", display: "3 DAY SELECT", category: carriers.CategoryStandard, base: 1900, perLb: 260, zoneStep: 230, zonePerLb: 80, minDays: 3, maxDays: 3, maxOz: maxXPOz},
			{name: "2ndDayAir", display: "2ND DAY AIR", category: carriers.CategoryExpress, base: 2450, perLb: 330, zoneStep: 320, zonePerLb: 110, minDays: 2, maxDays: 2, guaranteed: true, maxOz: maxXPOz},
			{name: "NextDayAir", display: "NEXT DAY AIR", category: carriers.CategoryOvernight, base: 4600, perLb: 520, zoneStep: 540, zonePerLb: 160, minDays: 1, maxDays: 1, guaranteed: true, maxOz: maxXPOz},
		},
		international: []service{
			{name: "WorldwideExpedited", display: "WORLDWIDE EXPEDITED", category: carriers.CategoryStandard, base: 6800, perLb: 900, minDays: 5, maxDays: 5, maxOz: maxXPOz},
			{name: "WorldwideSaver", display: "WORLDWIDE SAVER", category: carriers.CategoryExpress, base: 8200, perLb: 1050, minDays: 3, maxDays: 3, maxOz: maxXPOz},
		},
		signature:    695,
		residential:  545,
		capabilities: carriers.CapMultiPiece | carriers.CapLandedCost | carriers.CapFindPickup,
		// Real UPS numbers are "1Z" plus 16 characters; keep the length so
		// clients that validate the shape still accept sandbox numbers.
		trackingCode:  func(d string) string { return "1ZSANDBOX" + d[:9] },
		trackingShape: shape("1ZSANDBOX", 9),
	}
}

func fedexTariff() tariff {
	return tariff{
		name: CarrierFedEx,
		domestic: []service{
			{name: "Ground", display: "GROUND", category: carriers.CategoryEconomy, base: 1040, perLb: 118, zoneStep: 82, zonePerLb: 31, minDays: 1, maxDays: 5, maxOz: maxXPOz},
			{name: "ExpressSaver", display: "EXPRESS SAVER", category: carriers.CategoryStandard, base: 1850, perLb: 255, zoneStep: 240, zonePerLb: 82, minDays: 3, maxDays: 3, maxOz: maxXPOz},
			{name: "2Day", display: "2DAY", category: carriers.CategoryExpress, base: 2400, perLb: 340, zoneStep: 330, zonePerLb: 112, minDays: 2, maxDays: 2, guaranteed: true, maxOz: maxXPOz},
			{name: "StandardOvernight", display: "STANDARD OVERNIGHT", category: carriers.CategoryOvernight, base: 4300, perLb: 500, zoneStep: 560, zonePerLb: 165, minDays: 1, maxDays: 1, guaranteed: true, maxOz: maxXPOz},
		},
		international: []service{
			{name: "InternationalEconomy", display: "INTERNATIONAL ECONOMY", category: carriers.CategoryStandard, base: 6500, perLb: 880, minDays: 5, maxDays: 5, maxOz: maxXPOz},
			{name: "InternationalPriority", display: "INTERNATIONAL PRIORITY", category: carriers.CategoryExpress, base: 7900, perLb: 1020, minDays: 3, maxDays: 3, maxOz: maxXPOz},
		},
		signature:    690,
		residential:  550,
		capabilities: carriers.CapManifests | carriers.CapMultiPiece | carriers.CapLandedCost,
		// FedEx numbers are 12 digits; the SANDBOX prefix marks them as stubs.
		trackingCode:  func(d string) string { return "SANDBOX7" + d[:11] },
		trackingShape: shape("SANDBOX7", 11),
	}
}

func shape(prefix string, digits int) func(string) bool {
	return func(tn string) bool {
		rest, ok := strings.CutPrefix(tn, prefix)
		if !ok || len(rest) != digits {
			return false
		}
		for _, r := range rest {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
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

// price returns the charge in cents for a billable weight and zone, before
// per-label surcharges.
func (s service) price(billableOz float64, z int) int64 {
	zf := int64(z - 1)
	if oz := ceilUnits(billableOz); s.ounceRated && oz < 16 {
		// Ounce pricing meets the 1 lb price at 16 oz so the tariff has no
		// step down when crossing a pound.
		return s.base + s.zoneStep*zf + (s.perLb+s.zonePerLb*zf)*oz/16
	}
	lbs := ceilUnits(billableOz / 16)
	return s.base + s.perLb*lbs + s.zoneStep*zf + s.zonePerLb*zf*lbs
}

func (s service) days(z int) int {
	return s.minDays + (z-1)*(s.maxDays-s.minDays)/(maxZone-1)
}
