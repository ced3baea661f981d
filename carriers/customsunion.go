package carriers

import "strings"

// Customs territories. A shipment needs a customs declaration when its two
// addresses are in different customs territories: between two member
// states of the EU customs union none is needed (the union's Customs Code,
// Regulation (EU) 952/2013), to or from anywhere else one is, as it is for
// a US shipment abroad.
//
// Some territories of member states are outside the union's customs or VAT
// territory (Council Directive 2006/112/EC, Art. 6; Regulation (EU)
// 952/2013, Art. 4): goods to or from them travel with a declaration. They
// keep their member state's country code, so they are told apart by postal
// code (customsExclaves).

// euCustomsUnion are the member states of the EU customs union by ISO code,
// and Monaco, whose territory is in it (it is part of the French customs
// territory).
var euCustomsUnion = map[string]bool{
	"AT": true, "BE": true, "BG": true, "HR": true, "CY": true, "CZ": true, "DK": true,
	"EE": true, "FI": true, "FR": true, "DE": true, "GR": true, "HU": true, "IE": true,
	"IT": true, "LV": true, "LT": true, "LU": true, "MT": true, "NL": true, "PL": true,
	"PT": true, "RO": true, "SK": true, "SI": true, "ES": true, "SE": true, "MC": true,
}

// CustomsExclave is a territory of an EU member state outside the customs
// union, or outside its VAT area, found by its postal codes.
type CustomsExclave struct {
	Country string
	// Prefixes are the postal codes (or their beginnings) of the territory.
	Prefixes []string
	Name     string
}

// customsExclaves is the documented table (VARIANTS.md, "Customs within
// Europe"), by postal code as each country writes it.
var customsExclaves = []CustomsExclave{
	{"ES", []string{"35", "38"}, "Canary Islands"},
	{"ES", []string{"51"}, "Ceuta"},
	{"ES", []string{"52"}, "Melilla"},
	{"FI", []string{"22"}, "Åland Islands"},
	{"GR", []string{"63086", "63087"}, "Mount Athos"},
	{"DE", []string{"27498"}, "Heligoland"},
	{"DE", []string{"78266"}, "Büsingen am Hochrhein"},
	{"IT", []string{"22061"}, "Campione d'Italia"},
	{"IT", []string{"23030"}, "Livigno"},
	// The French outermost regions and overseas collectivities written with
	// FR and their 97x/98x postal codes (with their own ISO codes, GP, MQ,
	// GF, RE, YT, PM, BL, MF, they are outside the union anyway).
	{"FR", []string{"971"}, "Guadeloupe"},
	{"FR", []string{"972"}, "Martinique"},
	{"FR", []string{"973"}, "French Guiana"},
	{"FR", []string{"974"}, "Réunion"},
	{"FR", []string{"975"}, "Saint Pierre and Miquelon"},
	{"FR", []string{"976"}, "Mayotte"},
	{"FR", []string{"977"}, "Saint Barthélemy"},
	{"FR", []string{"978"}, "Saint Martin"},
	{"FR", []string{"986", "987", "988"}, "French overseas collectivities in the Pacific"},
}

// CustomsExclaves lists the table of territories outside the union's
// customs or VAT territory, for documents and tests.
func CustomsExclaves() []CustomsExclave { return append([]CustomsExclave(nil), customsExclaves...) }

// CustomsTerritory names the customs territory of an address: "EU" for an
// address in the EU customs union (but its exclaves), else its country.
func CustomsTerritory(a Address) string {
	country := NormalizeCountry(a.Country)
	if !euCustomsUnion[country] {
		return country
	}
	if x, ok := CustomsExclaveOf(a); ok {
		return country + ":" + x.Name
	}
	return "EU"
}

// CustomsExclaveOf is the territory outside the union's customs or VAT
// territory that an address of a member state is in, if any.
func CustomsExclaveOf(a Address) (CustomsExclave, bool) {
	country := NormalizeCountry(a.Country)
	zip := strings.ReplaceAll(strings.TrimSpace(a.Zip), " ", "")
	for _, x := range customsExclaves {
		if x.Country != country {
			continue
		}
		for _, p := range x.Prefixes {
			if strings.HasPrefix(zip, p) {
				return x, true
			}
		}
	}
	return CustomsExclave{}, false
}

// CustomsRequired reports whether a shipment between the addresses needs a
// customs declaration: they are in different customs territories.
func CustomsRequired(from, to Address) bool {
	return CustomsTerritory(from) != CustomsTerritory(to)
}

// InEUCustomsUnion reports whether a country is a member of the EU customs
// union (or Monaco).
func InEUCustomsUnion(country string) bool { return euCustomsUnion[NormalizeCountry(country)] }
