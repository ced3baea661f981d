package carriers

// SandboxTariff is how test mode imitates a connector's carrier
// (carriers/sandbox): its services with deterministic prices, its
// surcharges, the form of its sandbox tracking numbers, and the parts of
// the live carrier's behaviour the sandbox plays too. A connector without
// one has no sandbox twin.
type SandboxTariff struct {
	// Domestic services ship within a country; International ones cross
	// a border, priced by weight alone (one flat zone).
	Domestic, International []SandboxService
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

// SandboxService is one sandbox service and its tariff. The charge for w
// billable pounds in zone z is
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
}
