package carriers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// AddressProblem is one reason a carrier would refuse an address's state or
// postal code. Field is the address field (state, zip); Message completes
// it as a sentence ("must be a 5-digit ZIP code ...").
type AddressProblem struct {
	Field   string
	Message string
}

// PostalProblems checks the parts of an address every carrier refuses when
// malformed, in test and live mode alike, so that an integration tested
// against the sandbox works live:
//
//   - a US address's state must be a USPS state or territory code (usStates);
//   - a US ZIP code (and one of a territory with its own country code) is
//     5 digits or ZIP+4, whose 3-digit prefix is in use and which is at most
//     the highest ZIP code in use (99950, Ketchikan AK);
//   - a postal code of a country in postalFormats must have that country's
//     format. Other countries' codes (none, or free formats) are not checked.
//
// A missing state is the caller's rule (it is a missing field, not a wrong
// one); an empty state is not reported here.
func PostalProblems(a Address) []AddressProblem {
	var out []AddressProblem
	country := NormalizeCountry(a.Country)
	if country == "US" {
		if st := strings.TrimSpace(a.State); st != "" {
			if msg := stateProblem(st); msg != "" {
				out = append(out, AddressProblem{Field: "state", Message: msg})
			}
		}
	}
	if msg := postalCodeProblem(country, a.Zip); msg != "" {
		out = append(out, AddressProblem{Field: "zip", Message: msg})
	}
	return out
}

// usStates are the codes the state field of a US address takes: the 50
// states, DC, the inhabited territories, the Freely Associated States (which
// USPS serves as domestic mail) and the three military "states" of APO/FPO/DPO
// addresses. UM (the Minor Outlying Islands) is left out: USPS delivers no
// mail there and the carriers' lists do not have it. The address verifier
// reads it too (IsUSState).
var usStates = map[string]string{
	"AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas",
	"CA": "California", "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware",
	"FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
	"IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
	"KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland",
	"MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi",
	"MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
	"NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York",
	"NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma",
	"OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina",
	"SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah",
	"VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
	"WI": "Wisconsin", "WY": "Wyoming",
	"DC": "District of Columbia",
	"PR": "Puerto Rico", "GU": "Guam", "VI": "U.S. Virgin Islands",
	"AS": "American Samoa", "MP": "Northern Mariana Islands",
	"FM": "Federated States of Micronesia", "MH": "Marshall Islands", "PW": "Palau",
	"AA": "Armed Forces Americas", "AE": "Armed Forces Europe", "AP": "Armed Forces Pacific",
}

// IsUSState reports whether code is a USPS state or territory code (upper
// case): the one list of them, for the address rules and the verifier.
func IsUSState(code string) bool {
	_, ok := usStates[code]
	return ok
}

// USStateCodes lists the codes IsUSState accepts, sorted.
func USStateCodes() []string {
	return slices.Sorted(maps.Keys(usStates))
}

// USStateName is the name of a state or territory code ("New York" for NY).
func USStateName(code string) (string, bool) {
	name, ok := usStates[code]
	return name, ok
}

// stateProblem is what is wrong with a US state field ("" when nothing):
// only the code is accepted, since the carriers' state fields take two
// letters; a full name gets its code as a hint.
func stateProblem(state string) string {
	code := strings.ToUpper(state)
	if _, ok := usStates[code]; ok {
		return ""
	}
	for c, name := range usStates {
		if strings.EqualFold(strings.Join(strings.Fields(state), " "), name) {
			return fmt.Sprintf("must be a two-letter state or territory code: %s for %s", c, name)
		}
	}
	return fmt.Sprintf("%q is not a US state or territory code: use the two-letter USPS code (NY, CA, DC, PR, AE, ...)", state)
}

// highestZip is the highest US ZIP code in use (Ketchikan, Alaska): the 999
// prefix is Ketchikan's, but nothing above 99950 exists.
const highestZip = 99950

// unusedZipPrefixes are the 3-digit ZIP prefixes outside every state's
// published range (the complement of the address verifier's zipPrefixes):
// no ZIP code starts with them. A prefix unused but inside a state's range
// is accepted, as the verifier does: better to sell a label USPS might
// deliver than to refuse a real ZIP code.
var unusedZipPrefixes = map[string]bool{
	"000": true, "001": true, "002": true, "003": true, "004": true, "099": true,
	"269": true, "428": true, "429": true, "529": true, "568": true, "578": true,
	"579": true, "589": true, "659": true, "694": true, "695": true, "696": true,
	"697": true, "698": true, "699": true, "715": true, "817": true, "818": true,
	"819": true, "839": true, "848": true, "849": true, "866": true, "867": true,
	"868": true, "869": true, "886": true, "887": true, "888": true, "899": true,
}

// usZipCountries use US ZIP codes: the US and the territories that have
// country codes of their own.
var usZipCountries = map[string]bool{
	"US": true, "PR": true, "VI": true, "GU": true, "AS": true, "MP": true,
	"FM": true, "MH": true, "PW": true,
}

// postalFormats are the postal code formats checked per country, as written:
// 9 is a digit, A a letter (any case), X a letter or a digit, a space may
// be left out, any other character is itself. A country not listed has no postal codes or a format
// too free to check, and its codes are taken as given.
var postalFormats = map[string][]string{
	// The EU's member states, Monaco, the EFTA states and the UK: every
	// one with a fixed format (Universal Postal Union, Postal addressing
	// systems). A country prefix some write before the code (L-1234,
	// LV-1050, LT-12345) is accepted where it is the national usage.
	"AT": {"9999"},
	"BE": {"9999"},
	"BG": {"9999"},
	"CH": {"9999"},
	"CY": {"9999"},
	"CZ": {"999 99"},
	"DE": {"99999"},
	"DK": {"9999"},
	"EE": {"99999"},
	"ES": {"99999"},
	"FI": {"99999"},
	"FR": {"99999"},
	"GB": {"A9 9AA", "A99 9AA", "A9A 9AA", "AA9 9AA", "AA99 9AA", "AA9A 9AA", "GIR 0AA"},
	"GR": {"999 99"},
	"HR": {"99999"},
	"HU": {"9999"},
	"IE": {"AXX XXXX"}, // Eircode: a routing key (A65, D6W) and a 4-character identifier
	"IS": {"999"},
	"IT": {"99999"},
	"LI": {"9999"},
	"LT": {"99999", "LT-99999"},
	"LU": {"9999", "L-9999"},
	"LV": {"9999", "LV-9999"},
	"MC": {"99999"},
	"MT": {"AAA 9999"},
	"NL": {"9999 AA"},
	"NO": {"9999"},
	"PL": {"99-999"},
	"PT": {"9999-999"},
	"RO": {"999999"},
	"SE": {"999 99"},
	"SI": {"9999"},
	"SK": {"999 99"},
	// Elsewhere.
	"AU": {"9999"},
	"BR": {"99999-999", "99999999"},
	"CA": {"A9A 9A9"},
	"CN": {"999999"},
	"IN": {"999 999"},
	"JP": {"999-9999", "9999999"},
	"KR": {"99999"},
	"MX": {"99999"},
	"NZ": {"9999"},
}

// postalCodeProblem is what is wrong with zip in country ("" when nothing).
func postalCodeProblem(country, zip string) string {
	zip = strings.TrimSpace(zip)
	if usZipCountries[country] {
		return usZipProblem(zip)
	}
	formats, ok := postalFormats[country]
	if !ok {
		return ""
	}
	for _, f := range formats {
		if postalMatches(f, zip) {
			return ""
		}
	}
	return fmt.Sprintf("%q is not a postal code of %s: expected %s", zip, country, strings.Join(formats, " or "))
}

func usZipProblem(zip string) string {
	if !postalMatches("99999", zip) && !postalMatches("99999-9999", zip) {
		return fmt.Sprintf("%q is not a ZIP code: use 5 digits or ZIP+4 (12345 or 12345-6789)", zip)
	}
	if unusedZipPrefixes[zip[:3]] {
		return fmt.Sprintf("%q is not a ZIP code in use: no ZIP code starts with %s", zip, zip[:3])
	}
	n := 0
	for _, r := range zip[:5] {
		n = n*10 + int(r-'0')
	}
	if n > highestZip {
		return fmt.Sprintf("%q is not a ZIP code in use: the highest is %d", zip, highestZip)
	}
	return ""
}

// postalMatches reports whether code is written in format (see postalFormats).
func postalMatches(format, code string) bool {
	i := 0
	for _, f := range format {
		switch {
		case f == ' ':
			if i < len(code) && code[i] == ' ' {
				i++
			}
			continue
		case i >= len(code):
			return false
		}
		c := code[i]
		switch f {
		case '9':
			if c < '0' || c > '9' {
				return false
			}
		case 'A':
			if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
				return false
			}
		case 'X':
			if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				return false
			}
		default:
			if !strings.EqualFold(string(c), string(f)) {
				return false
			}
		}
		i++
	}
	return i == len(code)
}
