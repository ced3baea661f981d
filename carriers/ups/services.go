package ups

import "github.com/shipd-dev/shipd/carriers"

// service is one UPS service shipd quotes and buys.
type service struct {
	// code is the UPS service code (Shipment/Service/Code).
	code string
	// name is the carriers.Rate Service; where the sandbox UPS has the same
	// service (carriers/sandbox/pricing.go) the name is the same, so a
	// service chosen in test mode means the same thing in live mode.
	name     string
	display  string
	category string
	// typicalDays is the estimate used when UPS gives no transit time: the
	// guaranteed days of the air services, the slow end of Ground's 1-5.
	typicalDays int
}

// serviceTable is the UPS small-package service table. It is a function,
// not a package variable, so no caller can change it for the others.
//
// Source: the service code lists of the UPS Rating API
// (UPS-API/api-documentation Rating.yaml, Shipment/Service/Code: "Valid
// domestic values ... Valid international values") and Shipping API
// (Shipping.yaml, Shipment/Service/Code). Codes UPS returns that are not
// listed here (freight, Mail Innovations, Worldwide Economy, the Polish and
// German local services, Roadie) are skipped when rating: shipd does not buy
// them.
func serviceTable() []service {
	return []service{
		// Domestic (US).
		{code: "03", name: "Ground", display: "UPS Ground", category: carriers.CategoryEconomy, typicalDays: 5},
		{code: "12", name: "3DaySelect", display: "UPS 3 Day Select", category: carriers.CategoryStandard, typicalDays: 3},
		{code: "02", name: "2ndDayAir", display: "UPS 2nd Day Air", category: carriers.CategoryExpress, typicalDays: 2},
		{code: "59", name: "2ndDayAirAM", display: "UPS 2nd Day Air A.M.", category: carriers.CategoryExpress, typicalDays: 2},
		{code: "13", name: "NextDayAirSaver", display: "UPS Next Day Air Saver", category: carriers.CategoryOvernight, typicalDays: 1},
		{code: "01", name: "NextDayAir", display: "UPS Next Day Air", category: carriers.CategoryOvernight, typicalDays: 1},
		{code: "14", name: "NextDayAirEarly", display: "UPS Next Day Air Early", category: carriers.CategoryOvernight, typicalDays: 1},
		// International.
		{code: "11", name: "Standard", display: "UPS Standard", category: carriers.CategoryEconomy, typicalDays: 5},
		{code: "08", name: "WorldwideExpedited", display: "UPS Worldwide Expedited", category: carriers.CategoryStandard, typicalDays: 5},
		{code: "65", name: "WorldwideSaver", display: "UPS Worldwide Saver", category: carriers.CategoryExpress, typicalDays: 3},
		{code: "07", name: "WorldwideExpress", display: "UPS Worldwide Express", category: carriers.CategoryExpress, typicalDays: 2},
		{code: "54", name: "WorldwideExpressPlus", display: "UPS Worldwide Express Plus", category: carriers.CategoryExpress, typicalDays: 2},
	}
}

func serviceByCode(code string) (service, bool) {
	for _, s := range serviceTable() {
		if s.code == code {
			return s, true
		}
	}
	return service{}, false
}

// serviceByName accepts the Service of a Rate; names compare exactly
// because they are typed back from quotes, not by people.
func serviceByName(name string) (service, bool) {
	for _, s := range serviceTable() {
		if s.name == name {
			return s, true
		}
	}
	return service{}, false
}
