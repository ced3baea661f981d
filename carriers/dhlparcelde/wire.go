package dhlparcelde

import (
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/shipd-dev/shipd/carriers"
)

// iso3 is a country's ISO 3166-1 alpha-3 code, as DHL's Country takes it
// ("A valid country code consisting of three characters"), from shipd's
// alpha-2; "" for a code that names no country.
func iso3(country string) string {
	r, err := language.ParseRegion(carriers.NormalizeCountry(country))
	if err != nil || !r.IsCountry() {
		return ""
	}
	return r.ISO3()
}

// cut is s trimmed to at most n characters (DHL's maxLength counts
// characters, and a cut must not split one).
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}

// House numbers as streets write them: digits, maybe a letter, maybe a
// range or a second number (12a, 12 a, 1-3, 5/7), at the end of the street
// (German: "Hauptstr. 5") or at its start (French, British: "5 rue de
// Rivoli", "10 Downing Street").
var (
	houseLast  = regexp.MustCompile(`^(.*\D)\s+(\d+\s?[A-Za-z]?(?:\s?[-/]\s?\d+\s?[A-Za-z]?)?)$`)
	houseFirst = regexp.MustCompile(`^(\d+[A-Za-z]?(?:[-/]\d+[A-Za-z]?)?),?\s+(\D.*)$`)
)

// splitStreet parts a street line into the street (addressStreet) and the
// house number (addressHouse, at most 10 characters), "" when the line has
// none. The Shipping API takes both in addressStreet too, but the Returns
// and Pickup APIs require addressHouse, and DHL reads a German address
// best parted.
func splitStreet(line string) (street, house string) {
	line = strings.Join(strings.Fields(line), " ")
	if m := houseLast.FindStringSubmatch(line); m != nil && utf8.RuneCountInString(m[2]) <= 10 {
		return strings.TrimRight(strings.TrimSpace(m[1]), ","), strings.ReplaceAll(m[2], " ", "")
	}
	if m := houseFirst.FindStringSubmatch(line); m != nil && utf8.RuneCountInString(m[1]) <= 10 {
		return strings.TrimSpace(m[2]), m[1]
	}
	return line, ""
}

// hasHouseNumber reports whether a street line has a house number
// splitStreet finds.
func hasHouseNumber(line string) bool {
	_, house := splitStreet(line)
	return house != ""
}

// names are an address's name lines: the company first when there is one
// (name1, printed largest), then the person; a person alone is name1.
func names(a carriers.Address) (name1, name2 string) {
	company, person := strings.TrimSpace(a.Company), strings.TrimSpace(a.Name)
	switch {
	case company != "" && person != "" && !strings.EqualFold(company, person):
		return company, person
	case company != "":
		return company, ""
	}
	return person, ""
}

// grams is a parcel's weight in whole grams, rounded up (DHL weighs in
// grams; shipd may hold a fraction of one).
func grams(p carriers.Parcel) int {
	return int(math.Ceil(carriers.MetricOf(p).WeightG - 1e-9))
}

// cm is a length in whole centimetres, rounded up (Dimensions take
// integers).
func cm(v float64) int { return int(math.Ceil(v - 1e-9)) }

// berlin is the offset of Germany's time at t: CET, or CEST from the last
// Sunday of March to the last Sunday of October at 01:00 UTC (the EU's
// summer time). Computed here rather than loaded, so that a server
// without a time zone database dates DHL's days right.
func berlin(t time.Time) *time.Location {
	t = t.UTC()
	start := lastSunday(t.Year(), time.March).Add(time.Hour)
	end := lastSunday(t.Year(), time.October).Add(time.Hour)
	if !t.Before(start) && t.Before(end) {
		return time.FixedZone("CEST", 2*3600)
	}
	return time.FixedZone("CET", 3600)
}

func lastSunday(year int, month time.Month) time.Time {
	d := time.Date(year, month+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	return d.AddDate(0, 0, -int(d.Weekday()))
}

// berlinDate is t's date in Germany, as DHL's dates are (YYYY-MM-DD).
func berlinDate(t time.Time) string { return t.In(berlin(t)).Format(time.DateOnly) }

// shipDate is the shipDate of an order: the shipment's, but never before
// today in Germany ("It must not be in the past"), which a date taken in
// UTC late in the evening would be.
func (c *Carrier) shipDate(s carriers.Shipment) string {
	today := berlinDate(c.cfg.Now())
	if s.ShipDate.IsZero() {
		return today
	}
	if d := s.ShipDate.Format(time.DateOnly); d > today {
		return d
	}
	return today
}
