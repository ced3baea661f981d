package carriers_test

import (
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

func TestCustomsRequired(t *testing.T) {
	t.Parallel()
	at := func(country, zip string) carriers.Address { return carriers.Address{Country: country, Zip: zip} }
	for _, c := range []struct {
		name     string
		from, to carriers.Address
		want     bool
	}{
		{"within a member state", at("DE", "10115"), at("DE", "80331"), false},
		{"between member states", at("DE", "10115"), at("FR", "75001"), false},
		{"to Monaco, in the French customs territory", at("DE", "10115"), at("MC", "98000"), false},
		{"to Switzerland", at("DE", "10115"), at("CH", "8001"), true},
		{"to the UK", at("FR", "75001"), at("GB", "SW1A 1AA"), true},
		{"to Norway", at("SE", "111 22"), at("NO", "0150"), true},
		{"from the US", at("US", "10001"), at("DE", "10115"), true},
		{"to the Canary Islands", at("ES", "28001"), at("ES", "35001"), true},
		{"from Tenerife to Germany", at("ES", "38001"), at("DE", "10115"), true},
		{"to Ceuta", at("DE", "10115"), at("ES", "51001"), true},
		{"to Åland", at("FI", "00100"), at("FI", "22100"), true},
		{"to Mount Athos", at("GR", "546 21"), at("GR", "630 86"), true},
		{"to Heligoland", at("DE", "20095"), at("DE", "27498"), true},
		{"to Büsingen", at("DE", "10115"), at("DE", "78266"), true},
		{"to Livigno", at("IT", "00118"), at("IT", "23030"), true},
		{"to Campione d'Italia", at("IT", "00118"), at("IT", "22061"), true},
		{"to Réunion written FR", at("FR", "75001"), at("FR", "97400"), true},
		{"to Réunion written RE", at("FR", "75001"), at("RE", "97400"), true},
		{"between two Canary Islands", at("ES", "35001"), at("ES", "35500"), false},
		{"within the US", at("US", "10001"), at("", "94105"), false},
	} {
		if got := carriers.CustomsRequired(c.from, c.to); got != c.want {
			t.Errorf("%s: CustomsRequired = %v, want %v", c.name, got, c.want)
		}
	}
}

// Every country of the EU, the EFTA and the UK has its postal code format
// checked: a well-formed code passes, a malformed one is named.
func TestEuropeanPostalCodes(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"AT": "1010", "BE": "1000", "BG": "1000", "HR": "10000", "CY": "1010", "CZ": "110 00", "DK": "1050",
		"EE": "10111", "FI": "00100", "FR": "75001", "DE": "10115", "GR": "105 57", "HU": "1051", "IE": "D02 X285",
		"IT": "00118", "LV": "LV-1050", "LT": "01100", "LU": "L-1009", "MT": "VLT 1117", "NL": "1012 AB", "PL": "00-001",
		"PT": "1100-148", "RO": "010011", "SK": "811 01", "SI": "1000", "ES": "28001", "SE": "111 22", "MC": "98000",
		"IS": "101", "LI": "9490", "NO": "0150", "CH": "8001", "GB": "SW1A 1AA",
	}
	for country, zip := range good {
		if ps := carriers.PostalProblems(carriers.Address{Country: country, Zip: zip}); len(ps) > 0 {
			t.Errorf("%s %q: %v", country, zip, ps)
		}
		if ps := carriers.PostalProblems(carriers.Address{Country: country, Zip: "ABC-12345-X"}); len(ps) != 1 || ps[0].Field != "zip" {
			t.Errorf("%s: a malformed code passed: %v", country, ps)
		}
	}
}
