package ups

import "github.com/shipd-dev/shipd/carriers"

// maxOz is the heaviest UPS package: 150 lb.
const maxOz = 150 * 16

// sandboxTariff is the sandbox's UPS: several pieces per shipment and a
// landed cost, no manifest step (UPS scans every package on pickup).
// Real UPS numbers are "1Z" plus 16 characters; the sandbox's keep the
// length so that clients that check the form accept them.
func sandboxTariff() *carriers.SandboxTariff {
	return &carriers.SandboxTariff{
		Domestic: []carriers.SandboxService{
			{Name: "Ground", Label: "GROUND", Category: carriers.CategoryEconomy, Base: 1050, PerLb: 115, ZoneStep: 85, ZonePerLb: 30, MinDays: 1, MaxDays: 5, MaxWeightOz: maxOz},
			{Name: "3DaySelect", Label: "3 DAY SELECT", Category: carriers.CategoryStandard, Base: 1900, PerLb: 260, ZoneStep: 230, ZonePerLb: 80, MinDays: 3, MaxDays: 3, MaxWeightOz: maxOz},
			{Name: "2ndDayAir", Label: "2ND DAY AIR", Category: carriers.CategoryExpress, Base: 2450, PerLb: 330, ZoneStep: 320, ZonePerLb: 110, MinDays: 2, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz},
			{Name: "NextDayAir", Label: "NEXT DAY AIR", Category: carriers.CategoryOvernight, Base: 4600, PerLb: 520, ZoneStep: 540, ZonePerLb: 160, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz},
		},
		International: []carriers.SandboxService{
			{Name: "WorldwideExpedited", Label: "WORLDWIDE EXPEDITED", Category: carriers.CategoryStandard, Base: 6800, PerLb: 900, MinDays: 5, MaxDays: 5, MaxWeightOz: maxOz},
			{Name: "WorldwideSaver", Label: "WORLDWIDE SAVER", Category: carriers.CategoryExpress, Base: 8200, PerLb: 1050, MinDays: 3, MaxDays: 3, MaxWeightOz: maxOz},
		},
		SignatureCents: 695, ResidentialCents: 545,
		TrackingPrefix: "1ZSANDBOX", TrackingDigits: 9,
		// Pickups it booked are found by reference, as UPS's Pickup Pending Status finds them.
		Capabilities: carriers.CapMultiPiece | carriers.CapLandedCost | carriers.CapFindPickup,
		PickupPrefix: "29",
	}
}
