package dpd

import "github.com/shipd-dev/shipd/carriers"

// maxOz is DPD's heaviest parcel, 31.5 kg.
const maxOz = 31500 / carriers.GramsPerOunce

// sandboxTariff is the sandbox's DPD, in euros by weight and zone: Classic
// at home and abroad, the Express products by time of day (8:30, 12:00,
// 18:00, guaranteed) at home, International Express abroad; several
// parcels under one shipment; no manifest (DPD scans every parcel on
// pickup).
func sandboxTariff() *carriers.SandboxTariff {
	const maxCm = 175 // the longest side; 300 cm length and girth
	return &carriers.SandboxTariff{
		Currency: "EUR", Zoning: carriers.ZonesEurope, ActualWeight: true,
		Domestic: []carriers.SandboxService{
			{Name: "Classic", Label: "DPD CLASSIC", Category: carriers.CategoryStandard, Base: 599, PerKg: 25, MinDays: 1, MaxDays: 2, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express18", Label: "DPD EXPRESS 18:00", Category: carriers.CategoryExpress, Base: 999, PerKg: 35, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express12", Label: "DPD EXPRESS 12:00", Category: carriers.CategoryExpress, Base: 1299, PerKg: 40, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express830", Label: "DPD EXPRESS 8:30", Category: carriers.CategoryOvernight, Base: 1499, PerKg: 50, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
		},
		International: []carriers.SandboxService{
			{Name: "Classic", Label: "DPD CLASSIC", Category: carriers.CategoryStandard, Base: 999, PerKg: 60, ZoneStep: 400, MinDays: 3, MaxDays: 6, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "InternationalExpress", Label: "DPD INTERNATIONAL EXPRESS", Category: carriers.CategoryExpress, Base: 1999, PerKg: 90, ZoneStep: 800, MinDays: 1, MaxDays: 3, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
		},
		TrackingPrefix: "DPDSBX", TrackingDigits: 8,
		Capabilities: carriers.CapMultiPiece,
		PickupPrefix: "DPDP",
	}
}
