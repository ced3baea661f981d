package dhlparcelde

import "github.com/shipd-dev/shipd/carriers"

// oz is grams in ounces, for the tariff's weight limits.
func oz(grams float64) float64 { return grams / carriers.GramsPerOunce }

// sandboxTariff is the sandbox's DHL Paket, in euros by weight and zone:
// Paket and Kleinpaket within Germany, Europaket to the EU's businesses,
// Paket International and Warenpost International abroad; a daily
// manifest (Tagesabschluss), CN23s on labels that cross a customs border,
// one piece per label.
func sandboxTariff() *carriers.SandboxTariff {
	const maxCm = 120 // 120 x 60 x 60 cm
	return &carriers.SandboxTariff{
		Currency: "EUR", Zoning: carriers.ZonesEurope, ActualWeight: true,
		Domestic: []carriers.SandboxService{
			{Name: "Kleinpaket", Label: "KLEINPAKET", Category: carriers.CategoryEconomy, Base: 399, MinDays: 2, MaxDays: 2, MaxWeightOz: oz(1000), MaxLengthCm: 35},
			{Name: "Paket", Label: "DHL PAKET", Category: carriers.CategoryStandard, Base: 549, PerKg: 35, MinDays: 1, MaxDays: 2, MaxWeightOz: oz(maxGrams), MaxLengthCm: maxCm},
		},
		International: []carriers.SandboxService{
			{Name: "WarenpostInternational", Label: "WARENPOST INTERNATIONAL", Category: carriers.CategoryEconomy, Base: 700, ZoneStep: 300, MinDays: 4, MaxDays: 12, MaxWeightOz: oz(1000), MaxLengthCm: 35},
			{Name: "Europaket", Label: "EUROPAKET", Category: carriers.CategoryStandard, Base: 1399, PerKg: 45, ZoneStep: 200, MinDays: 2, MaxDays: 4, MaxWeightOz: oz(maxGrams), MaxLengthCm: maxCm, EUOnly: true},
			{Name: "PaketInternational", Label: "DHL PAKET INTERNATIONAL", Category: carriers.CategoryStandard, Base: 1549, PerKg: 110, ZoneStep: 600, ZonePerLb: 40, MinDays: 3, MaxDays: 10, MaxWeightOz: oz(maxGrams), MaxLengthCm: maxCm},
		},
		TrackingPrefix: "00340SBX", TrackingDigits: 12,
		Capabilities:       carriers.CapManifests,
		PostalCustomsForms: true,
		ManifestTitle:      "DHL PAKET TAGESABSCHLUSS - DAILY MANIFEST",
		PickupPrefix:       "DHLP",
	}
}
