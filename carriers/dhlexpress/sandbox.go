package dhlexpress

import "github.com/shipd-dev/shipd/carriers"

// maxOz is DHL Express's heaviest piece, 70 kg.
const maxOz = 70000 / carriers.GramsPerOunce

// sandboxTariff is the sandbox's DHL Express: from any country, in the
// origin's currency (its euro tariff converted at the sandbox's fixed
// rates), by weight (dimensional weight charged: 5,000 cm³ a kilogram is
// the US 139 in³ a pound) and zone: Domestic Express at home; Express
// Worldwide, 12:00 and 9:00 abroad; Express Worldwide EU and Economy
// Select between EU member states; several pieces, landed cost and
// paperless invoices; no manifest.
//
// It is the live connector's twin: the same services with DHL's product
// names (services.go; their product codes are the live rates'), the same
// guarantees (the time-definite products), waybill numbers of 10 digits
// behind the sandbox's prefix, and the label formats and sizes of the
// descriptor (TestSandboxTwinMatchesTheLiveConnector).
func sandboxTariff() *carriers.SandboxTariff {
	const maxCm = 120 // 120 x 80 x 80 cm a piece
	return &carriers.SandboxTariff{
		Currency: "EUR", PricesInOriginCurrency: true, Zoning: carriers.ZonesEurope,
		Domestic: []carriers.SandboxService{
			{Name: "DomesticExpress", Label: "DOMESTIC EXPRESS", Category: carriers.CategoryOvernight, Base: 1990, PerKg: 150, MinDays: 1, MaxDays: 1, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm,
				NotFrom: []string{"US"}},
		},
		International: []carriers.SandboxService{
			{Name: "EconomySelect", Label: "ECONOMY SELECT", Category: carriers.CategoryEconomy, Base: 2990, PerKg: 180, MinDays: 3, MaxDays: 6, MaxWeightOz: maxOz, MaxLengthCm: maxCm, EUOnly: true},
			{Name: "ExpressWorldwideEU", Label: "EXPRESS WORLDWIDE EU", Category: carriers.CategoryExpress, Base: 3490, PerKg: 250, MinDays: 1, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm, EUOnly: true},
			{Name: "ExpressWorldwide", Label: "EXPRESS WORLDWIDE", Category: carriers.CategoryExpress, Base: 4490, PerKg: 350, ZoneStep: 1500, ZonePerLb: 80, MinDays: 1, MaxDays: 3, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express1200", Label: "EXPRESS 12:00", Category: carriers.CategoryOvernight, Base: 5990, PerKg: 380, ZoneStep: 1500, ZonePerLb: 80, MinDays: 1, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
			{Name: "Express900", Label: "EXPRESS 9:00", Category: carriers.CategoryOvernight, Base: 7990, PerKg: 420, ZoneStep: 1500, ZonePerLb: 80, MinDays: 1, MaxDays: 2, Guaranteed: true, MaxWeightOz: maxOz, MaxLengthCm: maxCm},
		},
		SignatureCents: 450,
		TrackingPrefix: "SBXDHL", TrackingDigits: 10,
		Capabilities: carriers.CapMultiPiece | carriers.CapLandedCost,
		PickupPrefix: "PRG",
	}
}
