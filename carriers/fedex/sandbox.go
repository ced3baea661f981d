package fedex

import "github.com/shipd-dev/shipd/carriers"

// maxOz is the heaviest FedEx package: 150 lb.
const maxOz = 150 * 16

// sandboxTariff is the sandbox's FedEx: several pieces per shipment, a
// landed cost and a Ground end-of-day close. FedEx numbers are 12 digits;
// the SANDBOX prefix marks the sandbox's as stubs.
func sandboxTariff() *carriers.SandboxTariff {
	return &carriers.SandboxTariff{
		Domestic: []carriers.SandboxService{
			{Name: "Ground", Label: "GROUND", Category: carriers.CategoryEconomy, Base: 1040, PerLb: 118, ZoneStep: 82, ZonePerLb: 31, MinDays: 1, MaxDays: 5, MaxWeightOz: maxOz},
			{Name: "ExpressSaver", Label: "EXPRESS SAVER", Category: carriers.CategoryStandard, Base: 1850, PerLb: 255, ZoneStep: 240, ZonePerLb: 82, MinDays: 3, MaxDays: 3, MaxWeightOz: maxOz},
			{Name: "2Day", Label: "2DAY", Category: carriers.CategoryExpress, Base: 2400, PerLb: 340, ZoneStep: 330, ZonePerLb: 112, MinDays: 2, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz},
			{Name: "StandardOvernight", Label: "STANDARD OVERNIGHT", Category: carriers.CategoryOvernight, Base: 4300, PerLb: 500, ZoneStep: 560, ZonePerLb: 165, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz},
		},
		International: []carriers.SandboxService{
			{Name: "InternationalEconomy", Label: "INTERNATIONAL ECONOMY", Category: carriers.CategoryStandard, Base: 6500, PerLb: 880, MinDays: 5, MaxDays: 5, MaxWeightOz: maxOz},
			{Name: "InternationalPriority", Label: "INTERNATIONAL PRIORITY", Category: carriers.CategoryExpress, Base: 7900, PerLb: 1020, MinDays: 3, MaxDays: 3, MaxWeightOz: maxOz},
		},
		SignatureCents: 690, ResidentialCents: 550,
		TrackingPrefix: "SANDBOX7", TrackingDigits: 11,
		Capabilities:   carriers.CapManifests | carriers.CapMultiPiece | carriers.CapLandedCost,
		ManifestTitle:  "FEDEX GROUND END OF DAY CLOSE",
		PickupPrefix:   "SBX", PickupLocation: "SBXA",
	}
}
