package usps

import "github.com/shipd-dev/shipd/carriers"

// maxOz is the heaviest USPS parcel: 70 lb.
const maxOz = 70 * 16

// sandboxTariff is the sandbox's USPS: its mail classes, a SCAN form, CN22
// and CN23 on international labels, return labels on domestic mail only,
// one piece per label and no landed cost (USPS sells no DDP service).
func sandboxTariff() *carriers.SandboxTariff {
	return &carriers.SandboxTariff{
		Domestic: []carriers.SandboxService{
			{Name: "GroundAdvantage", Label: "GROUND ADVANTAGE", Category: carriers.CategoryEconomy, Base: 620, PerLb: 110, ZoneStep: 70, ZonePerLb: 25, MinDays: 2, MaxDays: 5, OunceRated: true, MaxWeightOz: maxOz},
			{Name: "Priority", Label: "PRIORITY MAIL", Category: carriers.CategoryStandard, Base: 850, PerLb: 140, ZoneStep: 95, ZonePerLb: 40, MinDays: 1, MaxDays: 3, MaxWeightOz: maxOz},
			{Name: "PriorityExpress", Label: "PRIORITY MAIL EXPRESS", Category: carriers.CategoryExpress, Base: 2800, PerLb: 280, ZoneStep: 220, ZonePerLb: 70, MinDays: 1, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz},
		},
		International: []carriers.SandboxService{
			{Name: "FirstClassPackageInternational", Label: "FIRST-CLASS PKG INTL", Category: carriers.CategoryEconomy, Base: 1450, PerLb: 480, MinDays: 12, MaxDays: 12, MaxWeightOz: 4 * 16},
			{Name: "PriorityMailInternational", Label: "PRIORITY MAIL INTL", Category: carriers.CategoryStandard, Base: 3900, PerLb: 520, MinDays: 8, MaxDays: 8, MaxWeightOz: maxOz},
			{Name: "PriorityMailExpressInternational", Label: "PRIORITY MAIL EXPRESS INTL", Category: carriers.CategoryExpress, Base: 5200, PerLb: 610, MinDays: 4, MaxDays: 4, MaxWeightOz: maxOz},
		},
		SignatureCents: 365,
		TrackingPrefix: "9400SANDBOX", TrackingDigits: 12,
		Capabilities:        carriers.CapManifests,
		ReturnsDomesticOnly: true,
		PostalCustomsForms:  true,
		ManifestTitle:       "USPS SCAN FORM - PS FORM 5630",
		PickupPrefix:        "WTC",
	}
}
