package fedex

import "github.com/shipd-dev/shipd/carriers"

// service is one FedEx service type that shipd offers.
type service struct {
	// code is FedEx's serviceType enumeration, sent in requests and read
	// from rate replies.
	code string
	// name is shipd's Service name; where the sandbox simulates the same real
	// service (carriers/sandbox/pricing.go), the names are the same so that a
	// service chosen in test mode means the same service in live mode.
	name     string
	category string
	// typicalDays is the upper end of FedEx's published transit time for
	// the service, used when a rate reply carries no transit time.
	typicalDays int
}

// services is the FedEx service-code table.
//
// Source: FedEx API reference, "Service Types / U.S. Region Service List"
// (https://developer.fedex.com/api/en-us/guides/api-reference.html), which
// is also where the serviceType values of the Rate and Ship APIs
// (rate/v1 RateQuotes-Resource.json, ship/v1 Shipment-Resource.json) point.
// Transit days are FedEx's published business-day commitments.
//
// Freight, SameDay and FedEx Ground Economy (SMART_POST, which needs a hub
// id and a USPS endorsement to ship) are left out: rate replies offering them
// are skipped like any other unknown code.
var services = []service{
	{code: "FEDEX_GROUND", name: "Ground", category: carriers.CategoryEconomy, typicalDays: 5},
	{code: "GROUND_HOME_DELIVERY", name: "HomeDelivery", category: carriers.CategoryEconomy, typicalDays: 5},
	{code: "FEDEX_EXPRESS_SAVER", name: "ExpressSaver", category: carriers.CategoryStandard, typicalDays: 3},
	{code: "FEDEX_2_DAY", name: "2Day", category: carriers.CategoryExpress, typicalDays: 2},
	{code: "FEDEX_2_DAY_AM", name: "2DayAM", category: carriers.CategoryExpress, typicalDays: 2},
	{code: "STANDARD_OVERNIGHT", name: "StandardOvernight", category: carriers.CategoryOvernight, typicalDays: 1},
	{code: "PRIORITY_OVERNIGHT", name: "PriorityOvernight", category: carriers.CategoryOvernight, typicalDays: 1},
	{code: "FIRST_OVERNIGHT", name: "FirstOvernight", category: carriers.CategoryOvernight, typicalDays: 1},
	{code: "FEDEX_INTERNATIONAL_CONNECT_PLUS", name: "InternationalConnectPlus", category: carriers.CategoryEconomy, typicalDays: 5},
	{code: "INTERNATIONAL_ECONOMY", name: "InternationalEconomy", category: carriers.CategoryStandard, typicalDays: 5},
	{code: "FEDEX_INTERNATIONAL_PRIORITY", name: "InternationalPriority", category: carriers.CategoryExpress, typicalDays: 3},
	{code: "FEDEX_INTERNATIONAL_PRIORITY_EXPRESS", name: "InternationalPriorityExpress", category: carriers.CategoryExpress, typicalDays: 3},
	{code: "INTERNATIONAL_FIRST", name: "InternationalFirst", category: carriers.CategoryOvernight, typicalDays: 2},
}

// serviceAliases are older serviceType values that FedEx still sends in
// replies (the Rate API's own example answers with INTERNATIONAL_PRIORITY)
// for a service now requested under another code.
var serviceAliases = map[string]string{
	"INTERNATIONAL_PRIORITY": "FEDEX_INTERNATIONAL_PRIORITY",
}

// serviceByCode finds a service by FedEx serviceType.
func serviceByCode(code string) (service, bool) {
	if canonical, ok := serviceAliases[code]; ok {
		code = canonical
	}
	for _, s := range services {
		if s.code == code {
			return s, true
		}
	}
	return service{}, false
}

// serviceByName finds a service by shipd Service name.
func serviceByName(name string) (service, bool) {
	for _, s := range services {
		if s.name == name {
			return s, true
		}
	}
	return service{}, false
}

// serviceNames lists the shipd names of every service, for error messages.
func serviceNames() []string {
	names := make([]string, len(services))
	for i, s := range services {
		names[i] = s.name
	}
	return names
}

// transitDayEnums are FedEx's transit-time enumeration (rate/v1
// commit.daysInTransit, operationalDetail.transitTime) in days. UNKNOWN and
// SMARTPOST_TRANSIT_DAYS are left out: they say nothing.
var transitDayEnums = map[string]int{
	"ONE_DAY": 1, "TWO_DAYS": 2, "THREE_DAYS": 3, "FOUR_DAYS": 4, "FIVE_DAYS": 5,
	"SIX_DAYS": 6, "SEVEN_DAYS": 7, "EIGHT_DAYS": 8, "NINE_DAYS": 9, "TEN_DAYS": 10,
	"ELEVEN_DAYS": 11, "TWELVE_DAYS": 12, "THIRTEEN_DAYS": 13, "FOURTEEN_DAYS": 14,
	"FIFTEEN_DAYS": 15, "SIXTEEN_DAYS": 16, "SEVENTEEN_DAYS": 17, "EIGHTEEN_DAYS": 18,
	"NINETEEN_DAYS": 19, "TWENTY_DAYS": 20,
}

// transitDays converts a transit-time enumeration into days.
func transitDays(enum string) (int, bool) {
	d, ok := transitDayEnums[enum]
	return d, ok
}
