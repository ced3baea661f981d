package carriers

// SandboxTariff is how test mode imitates a connector's carrier
// (carriers/sandbox): its services with deterministic prices, its
// surcharges, the form of its sandbox tracking numbers, and the parts of
// the live carrier's behaviour the sandbox plays too. A connector without
// one has no sandbox twin.
type SandboxTariff struct {
	// Domestic services ship within a country; International ones cross
	// a border.
	Domestic, International []SandboxService
	// Currency is the currency of the tariff's amounts ("" is USD).
	Currency string
	// PricesInOriginCurrency: a rate is in the currency of the country the
	// parcel leaves from (DHL Express), Currency's amounts converted at the
	// sandbox's fixed rates (carriers/sandbox: originCurrencies).
	PricesInOriginCurrency bool
	// Zoning is how the sandbox counts zones: ZonesUSZip (by the ZIP codes'
	// distance; international shipments one flat zone) or ZonesEurope.
	Zoning string
	// ActualWeight prices a parcel by its weight alone, with no
	// dimensional weight (DHL Paket, GLS and DPD limit a parcel's size
	// instead); otherwise the billable weight is the larger of the two.
	ActualWeight bool
	// SignatureCents and ResidentialCents are per-label surcharges.
	SignatureCents, ResidentialCents int64
	// TrackingPrefix and TrackingDigits make the sandbox's tracking
	// numbers: the prefix, then that many digits derived from the
	// purchase's reference (at most 20).
	TrackingPrefix string
	TrackingDigits int
	// Capabilities are the live carrier's that the sandbox plays beyond
	// what every sandbox carrier does (rates, labels, voids, planned
	// tracking, pickups, returns): CapManifests, CapMultiPiece, CapLandedCost.
	Capabilities Capabilities
	// ReturnsDomesticOnly: return labels on domestic services only (USPS's
	// return-label API is domestic).
	ReturnsDomesticOnly bool
	// PostalCustomsForms: an international label carries its CN22 or CN23
	// (a postal carrier's customs declaration) as a page of its own.
	PostalCustomsForms bool
	// ManifestTitle heads the end-of-day form (CapManifests).
	ManifestTitle string
	// PickupPrefix starts a pickup's confirmation number, as the carrier's
	// do; PickupLocation is the location code a cancel needs, "" for none.
	PickupPrefix, PickupLocation string
}

// Zonings of a sandbox tariff.
const (
	// ZonesUSZip: zones 1 to 8 by the distance of the ZIP codes (domestic);
	// international shipments are one flat zone.
	ZonesUSZip = ""
	// ZonesEurope: 1 within a country, 2 between two countries of the EU
	// customs union, 3 to or from the rest of Europe (CH, GB, NO …), 4 the
	// rest of the world.
	ZonesEurope = "europe"
)

// SandboxService is one sandbox service and its tariff. The charge for w
// billable pounds (or kilograms, for a service with PerKg) in zone z is
//
//	Base + PerLb*w + ZoneStep*(z-1) + ZonePerLb*(z-1)*w
//
// which, like real tariff tables, rises with both weight and distance and
// rises faster with weight the farther the parcel travels. Integer cents
// keep the result exact and deterministic.
type SandboxService struct {
	// Name is the service's API name; Label is printed on the label.
	Name, Label string
	// Category is CategoryEconomy … CategoryOvernight.
	Category                         string
	Base, PerLb, ZoneStep, ZonePerLb int64
	// PerKg, when set, charges per started kilogram instead of per pound
	// (and ZonePerLb per kilogram too).
	PerKg int64
	// MinDays at zone 1 grows linearly to MaxDays at the farthest zone.
	MinDays, MaxDays int
	// Guaranteed services promise their delivery date (money back).
	Guaranteed bool
	// OunceRated services (USPS Ground Advantage) price parcels under a
	// pound per whole ounce instead of rounding up to a full pound.
	OunceRated bool
	// MaxWeightOz is the heaviest parcel the service takes; heavier parcels
	// get no rate for it instead of an error, so other services still quote.
	MaxWeightOz float64
	// MaxLengthCm is the longest side it takes (0: no limit), as
	// MaxWeightOz.
	MaxLengthCm float64
	// EUOnly services ship between two countries of the EU customs union
	// only (DHL's Europaket, DHL Express Worldwide EU).
	EUOnly bool
	// NotFrom are countries the service is not sold from (DHL Express sells
	// no domestic express in the US).
	NotFrom []string
}
