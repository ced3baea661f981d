package pickups

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
)

// Every zone of the tables is in the database the binary embeds: a name
// it lacks would leave its addresses unchecked.
func TestCountryZonesLoad(t *testing.T) {
	t.Parallel()
	for _, table := range []map[string][]string{countryZones, usStateZones} {
		for _, key := range slices.Sorted(maps.Keys(table)) {
			for _, z := range table[key] {
				if _, err := time.LoadLocation(z); err != nil {
					t.Errorf("%s: %v", key, err)
				}
			}
		}
	}
	// Every USPS state code but the military ones has a zone.
	for _, code := range carriers.USStateCodes() {
		if _, ok := usStateZones[code]; !ok && !slices.Contains([]string{"AA", "AE", "AP"}, code) {
			t.Errorf("state %s has no zone", code)
		}
	}
}

func TestReadyAtZone(t *testing.T) {
	t.Parallel()
	addr := func(country, state string) shipping.Address {
		a := shipping.Address{Country: country}
		if state != "" {
			a.State = &state
		}
		return a
	}
	winter := time.Date(2031, time.January, 6, 9, 0, 0, 0, time.UTC)
	summer := time.Date(2031, time.July, 7, 9, 0, 0, 0, time.UTC)
	in := func(t time.Time, hours float64) time.Time {
		off := int(hours * 3600)
		return time.Date(t.Year(), t.Month(), t.Day(), 9, 0, 0, 0, time.FixedZone("", off))
	}
	for _, tc := range []struct {
		name    string
		a       shipping.Address
		readyAt time.Time
		want    string // "": accepted
	}{
		{"New York in winter", addr("US", "NY"), in(winter, -5), ""},
		{"New York in summer", addr("US", "ny"), in(summer, -4), ""},
		{"New York in summer at its winter offset", addr("US", "NY"), in(summer, -5), "America/New_York (UTC-04:00)"},
		{"New York in UTC", addr("US", "NY"), winter, "2031-01-06T09:00:00-05:00 for 09:00 there"},
		{"Phoenix keeps its offset", addr("US", "AZ"), in(summer, -7), ""},
		{"Honolulu", addr("US", "HI"), in(summer, -10), ""},
		{"a military address is not checked", addr("US", "AE"), in(summer, 3), ""},
		{"Berlin in summer", addr("DE", ""), in(summer, 2), ""},
		{"Berlin in winter at summer's offset", addr("de", ""), in(winter, 2), "Europe/Berlin (UTC+01:00)"},
		{"Canada in Newfoundland", addr("CA", "NL"), in(winter, -3.5), ""},
		{"Canada in Vancouver", addr("CA", "BC"), in(winter, -8), ""},
		{"Canada at +14:00", addr("CA", "ON"), in(winter, 14), "CA's zones are then"},
		{"Australia in Perth", addr("AU", ""), in(winter, 8), ""},
		{"Spain on the Canary Islands", addr("ES", ""), in(winter, 0), ""},
		{"a country without zone.tab's row", addr("XK", ""), in(winter, 5), ""},
	} {
		is := readyAtZoneIssue(tc.a, tc.readyAt)
		switch {
		case tc.want == "" && is != nil:
			t.Errorf("%s: refused: %s", tc.name, is.Message)
		case tc.want != "" && is == nil:
			t.Errorf("%s: accepted, want a refusal naming %q", tc.name, tc.want)
		case tc.want != "" && (is.Path != "readyAt" || !strings.Contains(is.Message, tc.want)):
			t.Errorf("%s: %s %q, want readyAt naming %q", tc.name, is.Path, is.Message, tc.want)
		}
	}
}

// AddressTime reads a wall clock at an address with one offset then, and
// declines one whose country's zones differ.
func TestAddressTime(t *testing.T) {
	t.Parallel()
	state := "NY"
	wall := time.Date(2031, time.July, 7, 9, 0, 0, 0, time.UTC)
	got, ok := AddressTime(shipping.Address{Country: "US", State: &state}, wall)
	if !ok || got.Format(time.RFC3339) != "2031-07-07T09:00:00-04:00" {
		t.Errorf("New York: %v %v", got, ok)
	}
	if got, ok := AddressTime(shipping.Address{Country: "DE"}, wall); !ok || got.Format(time.RFC3339) != "2031-07-07T09:00:00+02:00" {
		t.Errorf("Germany (two zones of one offset): %v %v", got, ok)
	}
	if _, ok := AddressTime(shipping.Address{Country: "CA"}, wall); ok {
		t.Error("Canada has one time")
	}
}
