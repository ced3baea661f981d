package carriers

import (
	"regexp"
	"strings"
)

// Tracking number forms, by carrier, as the carriers print them (spaces
// removed, letters upper-cased). They tell a well-formed number from a typo
// and, when exactly one carrier's forms match, name the carrier of a number
// given without one. Check digits are not verified: the carrier's tracking
// API is the judge of whether a number exists.
var numberForms = []struct {
	carrier string
	form    *regexp.Regexp
}{
	// 1Z, a 6-character shipper number, a 2-digit service code, 8 digits.
	{"UPS", regexp.MustCompile(`^1Z[0-9A-Z]{16}$`)},
	// IMpb: 20 to 22 digits; with the routing code in front (420 and a
	// 5- or 9-digit ZIP code) 30 or 34 digits ending in a 9x-led IMpb; and
	// 26-digit 9x numbers (Certified Mail and the like).
	{"USPS", regexp.MustCompile(`^(\d{20,22}|9\d{25}|420\d{5}9\d{21}|420\d{9}9\d{21})$`)},
	// Express and Ground: 12 or 15 digits; Ground's 22-digit 96 barcode,
	// which has the form of a USPS number too (so needs its carrier named).
	{"FedEx", regexp.MustCompile(`^(\d{12}|\d{15}|96\d{20})$`)},
}

// NormalizeTrackingNumber is a number as the forms read it: without spaces
// or dashes, upper case.
func NormalizeTrackingNumber(n string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(n)))
}

// TrackingNumberCarriers lists the carriers whose forms a number matches
// (normalized first): none for an unknown number, several for an ambiguous one.
func TrackingNumberCarriers(n string) []string {
	n = NormalizeTrackingNumber(n)
	var out []string
	for _, f := range numberForms {
		if f.form.MatchString(n) {
			out = append(out, f.carrier)
		}
	}
	return out
}

// WellFormedTrackingNumber reports whether n has one of carrier's forms;
// true for a carrier whose forms shipd does not know, which its own API judges.
func WellFormedTrackingNumber(carrier, n string) bool {
	n = NormalizeTrackingNumber(n)
	known := false
	for _, f := range numberForms {
		if strings.EqualFold(f.carrier, carrier) {
			known = true
			if f.form.MatchString(n) {
				return true
			}
		}
	}
	return !known
}
