package pickups

import (
	"fmt"
	"slices"
	"strings"
	"time"

	// The zone database inside the binary: a pickup's zone is checked on a
	// machine without /usr/share/zoneinfo (the scratch image, a fresh
	// container) exactly as on one with it.
	_ "time/tzdata"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
)

// Which zone a pickup address is in. Every carrier takes a pickup's day and
// hours as the address's local time, so readyAt must carry the offset the
// address's clocks have at that instant: 09:00Z for New York is 04:00
// there, a driver booked five hours early, or a day off near midnight.

// usStateZones place a US address by its state (USPS codes), territories
// included. A state whose counties span two zones is placed in the zone of
// its most populous part (VARIANTS.md, "Pickups"): FL, IN, KY, MI, TN (the
// Central part: Nashville, Memphis), TX, KS, NE, ND, SD (Central), ID
// (Boise, Mountain), OR, NV (Pacific), AZ (Phoenix, no daylight saving),
// AK (Anchorage). The military codes AA, AE and AP have no zone: their
// offset is not checked.
var usStateZones = map[string][]string{
	"AL": {"America/Chicago"}, "AK": {"America/Anchorage"}, "AZ": {"America/Phoenix"}, "AR": {"America/Chicago"},
	"CA": {"America/Los_Angeles"}, "CO": {"America/Denver"}, "CT": {"America/New_York"}, "DE": {"America/New_York"},
	"DC": {"America/New_York"}, "FL": {"America/New_York"}, "GA": {"America/New_York"}, "HI": {"Pacific/Honolulu"},
	"ID": {"America/Boise"}, "IL": {"America/Chicago"}, "IN": {"America/Indiana/Indianapolis"}, "IA": {"America/Chicago"},
	"KS": {"America/Chicago"}, "KY": {"America/New_York"}, "LA": {"America/Chicago"}, "ME": {"America/New_York"},
	"MD": {"America/New_York"}, "MA": {"America/New_York"}, "MI": {"America/Detroit"}, "MN": {"America/Chicago"},
	"MS": {"America/Chicago"}, "MO": {"America/Chicago"}, "MT": {"America/Denver"}, "NE": {"America/Chicago"},
	"NV": {"America/Los_Angeles"}, "NH": {"America/New_York"}, "NJ": {"America/New_York"}, "NM": {"America/Denver"},
	"NY": {"America/New_York"}, "NC": {"America/New_York"}, "ND": {"America/Chicago"}, "OH": {"America/New_York"},
	"OK": {"America/Chicago"}, "OR": {"America/Los_Angeles"}, "PA": {"America/New_York"}, "RI": {"America/New_York"},
	"SC": {"America/New_York"}, "SD": {"America/Chicago"}, "TN": {"America/Chicago"}, "TX": {"America/Chicago"},
	"UT": {"America/Denver"}, "VT": {"America/New_York"}, "VA": {"America/New_York"}, "WA": {"America/Los_Angeles"},
	"WV": {"America/New_York"}, "WI": {"America/Chicago"}, "WY": {"America/Denver"},
	"PR": {"America/Puerto_Rico"}, "VI": {"America/St_Thomas"}, "GU": {"Pacific/Guam"}, "AS": {"Pacific/Pago_Pago"},
	"MP": {"Pacific/Saipan"}, "MH": {"Pacific/Majuro", "Pacific/Kwajalein"}, "PW": {"Pacific/Palau"},
	"FM": {"Pacific/Chuuk", "Pacific/Pohnpei", "Pacific/Kosrae"},
}

// AddressZones are the IANA zones the address may be in: its US state's,
// or its country's (several for a country that spans zones); nil when
// shipd cannot tell (a military address, a country zone.tab lacks).
func AddressZones(a shipping.Address) []string {
	country := carriers.NormalizeCountry(a.Country)
	if country == "US" {
		return usStateZones[strings.ToUpper(strings.TrimSpace(deref(a.State)))]
	}
	return countryZones[country]
}

// AddressTime is wall's date and clock (its own offset ignored) at the
// address: in its zone, or in its country's zones when they all have one
// offset then (DE: Berlin and Büsingen). False when the address has no
// zone shipd knows or its zones differ then (a country that spans zones):
// the offset must be given.
func AddressTime(a shipping.Address, wall time.Time) (time.Time, bool) {
	var (
		out   time.Time
		found bool
	)
	for _, z := range AddressZones(a) {
		loc, err := time.LoadLocation(z)
		if err != nil {
			return time.Time{}, false
		}
		t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
		if found && !t.Equal(out) {
			return time.Time{}, false
		}
		if !found {
			out, found = t, true
		}
	}
	return out, found
}

// zoneOffset is one offset an address's zones have at an instant, with the
// first zone (zone.tab's order) that has it.
type zoneOffset struct {
	zone    string
	seconds int
}

func (z zoneOffset) String() string {
	return fmt.Sprintf("%s (UTC%s)", z.zone, offsetText(z.seconds))
}

// offsetText is an offset in seconds as ±hh:mm.
func offsetText(seconds int) string {
	return time.Unix(0, 0).In(time.FixedZone("", seconds)).Format("-07:00")
}

// readyAtZoneIssue checks that readyAt's offset is one the address's zones
// have at that instant; nil when it is, or when the address has no zone
// shipd knows.
func readyAtZoneIssue(a shipping.Address, readyAt time.Time) *shipping.Issue {
	zones := AddressZones(a)
	var offsets []zoneOffset
	for _, z := range zones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			continue // a zone the embedded database lacks; TestCountryZonesLoad keeps this from happening
		}
		_, off := readyAt.In(loc).Zone()
		if !slices.ContainsFunc(offsets, func(o zoneOffset) bool { return o.seconds == off }) {
			offsets = append(offsets, zoneOffset{z, off})
		}
	}
	_, given := readyAt.Zone()
	if len(offsets) == 0 || slices.ContainsFunc(offsets, func(o zoneOffset) bool { return o.seconds == given }) {
		return nil
	}
	msg := fmt.Sprintf("is at UTC%s, which is not the pickup address's offset on that day: ", offsetText(given))
	if len(offsets) == 1 {
		// The wall time the caller most likely meant, in the address's zone.
		loc, _ := time.LoadLocation(offsets[0].zone)
		meant := time.Date(readyAt.Year(), readyAt.Month(), readyAt.Day(), readyAt.Hour(), readyAt.Minute(), readyAt.Second(), 0, loc)
		msg += fmt.Sprintf("the address is in %s; carriers read readyAt and closeAt as the address's local time, so give them in its offset (%s for %s there)",
			offsets[0], meant.Format(time.RFC3339), readyAt.Format("15:04"))
	} else {
		parts := make([]string, len(offsets))
		for i, o := range offsets {
			parts[i] = o.String()
		}
		msg += fmt.Sprintf("%s's zones are then %s; carriers read readyAt and closeAt as the address's local time, so give them in the offset of the address's zone",
			carriers.NormalizeCountry(a.Country), strings.Join(parts, ", "))
	}
	return &shipping.Issue{Path: "readyAt", Message: msg}
}
