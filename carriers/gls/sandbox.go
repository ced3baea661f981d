package gls

import "github.com/shipd-dev/shipd/carriers"

// maxOz is GLS's heaviest parcel, 40 kg.
const maxOz = 40000 / carriers.GramsPerOunce

// sandboxTariff is the sandbox's GLS, in euros by weight and zone: Parcel
// (GLS's business parcel) and Express (next working day at home,
// guaranteed), both at home and to the rest of Europe; several parcels
// under one shipment; an end-of-day report.
func sandboxTariff() *carriers.SandboxTariff {
	const maxCm = 200 // the longest side; 300 cm length and girth
	return &carriers.SandboxTariff{
		Currency: "EUR", Zoning: carriers.ZonesEurope, ActualWeight: true,
		Domestic: []carriers.SandboxService{
			{Name: "Parcel", Label: "GLS BUSINESSPARCEL", Category: carriers.CategoryStandard, Base: 595, PerKg: 25, MinDays: 1, MaxDays: 2, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express", Label: "GLS EXPRESSPARCEL", Category: carriers.CategoryExpress, Base: 1490, PerKg: 40, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
		},
		International: []carriers.SandboxService{
			{Name: "Parcel", Label: "GLS EUROBUSINESSPARCEL", Category: carriers.CategoryStandard, Base: 995, PerKg: 50, ZoneStep: 500, MinDays: 2, MaxDays: 6, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express", Label: "GLS EXPRESSPARCEL", Category: carriers.CategoryExpress, Base: 2490, PerKg: 80, ZoneStep: 900, MinDays: 1, MaxDays: 3, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
		},
		TrackingPrefix: "GLSSBX", TrackingDigits: 8,
		Capabilities:  carriers.CapManifests | carriers.CapMultiPiece,
		ManifestTitle: "GLS END OF DAY REPORT",
		PickupPrefix:  "GLSP",
	}
}
