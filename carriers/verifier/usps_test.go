package verifier

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shipd-dev/shipd/carriers"
)

func TestStreetSuffixTable(t *testing.T) {
	t.Parallel()
	if n := len(streetSuffixes); n < 150 {
		t.Errorf("streetSuffixes has %d spellings, want the Pub 28 C1 set (at least 150)", n)
	}
	// A standard abbreviation must map to itself, or standard input would
	// be rewritten.
	for variant, std := range streetSuffixes {
		if got, ok := streetSuffixes[std]; !ok || got != std {
			t.Errorf("%s -> %s, but %s -> %q (present %v)", variant, std, std, got, ok)
		}
	}
	spotChecks := map[string]string{
		"AVENUE": "AVE", "AV": "AVE", "AVEN": "AVE", "AVENU": "AVE", "AVN": "AVE", "AVNUE": "AVE",
		"STREET": "ST", "STRT": "ST", "STR": "ST",
		"BOULEVARD": "BLVD", "DRIVE": "DR", "DRIV": "DR", "DRV": "DR",
		"ROAD": "RD", "LANE": "LN", "COURT": "CT", "CIRCLE": "CIR", "PLACE": "PL",
		"PARKWAY": "PKWY", "HIGHWAY": "HWY", "TERRACE": "TER", "TRAIL": "TRL", "SQUARE": "SQ",
		"EXPRESSWAY": "EXPY", "FREEWAY": "FWY", "CENTER": "CTR", "CROSSING": "XING",
		"TURNPIKE": "TPKE", "HEIGHTS": "HTS", "MOUNTAIN": "MTN", "JUNCTION": "JCT", "WAY": "WAY",
	}
	for variant, want := range spotChecks {
		if got := streetSuffixes[variant]; got != want {
			t.Errorf("streetSuffixes[%q] = %q, want %q", variant, got, want)
		}
	}
}

func TestStateTables(t *testing.T) {
	t.Parallel()
	codes := carriers.USStateCodes()
	if n := len(codes); n != 50+1+5+3+3 {
		t.Errorf("carriers has %d state codes, want 50 states + DC + 5 territories + 3 freely associated + 3 military", n)
	}
	for _, code := range codes {
		name, _ := carriers.USStateName(code)
		typed := strings.ReplaceAll(strings.ToUpper(name), ".", "")
		if got := stateNames[typed]; got != code {
			t.Errorf("stateNames[%q] = %q, want %q", typed, got, code)
		}
		if len(zipPrefixes[code]) == 0 {
			t.Errorf("state %s has no ZIP prefixes", code)
		}
	}
	for name, code := range stateNames {
		if !carriers.IsUSState(code) {
			t.Errorf("stateNames[%q] = %q, not a state code", name, code)
		}
	}
	for code := range zipPrefixes {
		if !carriers.IsUSState(code) {
			t.Errorf("zipPrefixes has unknown state %q", code)
		}
	}
}

func TestZipPrefixes(t *testing.T) {
	t.Parallel()
	// Shared prefixes: 063 is Connecticut except Fishers Island NY (06390);
	// 967 and 969 are split among Hawaii and the Pacific territories.
	shared := map[int]bool{63: true, 967: true, 969: true}
	for prefix := range 1000 {
		var owners []string
		for state := range zipPrefixes {
			if zipInState(prefix, state) {
				owners = append(owners, state)
			}
		}
		if len(owners) > 1 && !shared[prefix] {
			t.Errorf("prefix %03d belongs to %v", prefix, owners)
		}
	}
	// A real ZIP code from each state and territory.
	real := map[string]string{
		"AL": "35203", "AK": "99501", "AZ": "85001", "AR": "72201", "CA": "90210", "CO": "80202",
		"CT": "06103", "DE": "19901", "DC": "20500", "FL": "33101", "GA": "30301", "HI": "96813",
		"ID": "83702", "IL": "60601", "IN": "46204", "IA": "50309", "KS": "66601", "KY": "40601",
		"LA": "70112", "ME": "04101", "MD": "21201", "MA": "02108", "MI": "48201", "MN": "55101",
		"MS": "38601", "MO": "63101", "MT": "59601", "NE": "68501", "NV": "89101", "NH": "03301",
		"NJ": "07101", "NM": "87501", "NY": "10001", "NC": "27601", "ND": "58501", "OH": "43215",
		"OK": "73101", "OR": "97201", "PA": "15201", "RI": "02903", "SC": "29201", "SD": "57501",
		"TN": "37201", "TX": "79901", "UT": "84101", "VT": "05601", "VA": "23219", "WA": "98101",
		"WV": "25301", "WI": "53202", "WY": "82001", "PR": "00901", "VI": "00802", "GU": "96910",
		"AS": "96799", "MP": "96950", "FM": "96941", "MH": "96960", "PW": "96940",
		"AA": "34002", "AE": "09001", "AP": "96201",
	}
	for state, zip := range real {
		prefix := 0
		fmt.Sscanf(zip[:3], "%d", &prefix)
		if !zipInState(prefix, state) {
			t.Errorf("ZIP %s is in %s, but the table disagrees", zip, state)
		}
	}
	for _, prefix := range []int{0, 4, 99, 269, 428, 529, 568, 578, 589, 659, 694, 715, 817, 839, 848, 866, 886, 899} {
		if prefixAssigned(prefix) {
			t.Errorf("prefix %03d is unassigned by USPS but the table assigns it", prefix)
		}
	}
}

func TestParseStreet1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		military bool
		want     street1Parts
	}{
		{in: "123 Avenue B", want: street1Parts{full: "123 AVENUE B", line: "123 AVENUE B"}},
		{in: "123 North Avenue", want: street1Parts{full: "123 NORTH AVE", line: "123 NORTH AVE"}},
		{in: "123 Main", want: street1Parts{full: "123 MAIN", line: "123 MAIN"}},
		{in: "1 Broadway West", want: street1Parts{full: "1 BROADWAY W", line: "1 BROADWAY W"}},
		{in: "123 S.W. Main St. N.E.", want: street1Parts{full: "123 SW MAIN ST NE", line: "123 SW MAIN ST NE"}},
		{in: "12 Lot Rd", want: street1Parts{full: "12 LOT RD", line: "12 LOT RD"}},
		{in: "100 Ocean Front", want: street1Parts{full: "100 OCEAN FRONT", line: "100 OCEAN FRONT"}},
		{in: "10 Highway 9 Lot 12", want: street1Parts{full: "10 HIGHWAY 9 LOT 12", line: "10 HIGHWAY 9", unit: "LOT 12"}},
		{in: "1 Park Place Penthouse", want: street1Parts{full: "1 PARK PL PH", line: "1 PARK PL", unit: "PH"}},
		{in: "5 Elm St Apt B", want: street1Parts{full: "5 ELM ST APT B", line: "5 ELM ST", unit: "APT B"}},
		{in: "5 Elm St Building 12-A", want: street1Parts{full: "5 ELM ST BLDG 12-A", line: "5 ELM ST", unit: "BLDG 12-A"}},
		{in: "5 Elm St Apartment", want: street1Parts{full: "5 ELM ST APARTMENT", line: "5 ELM ST APARTMENT"}},
		{in: "POBOX 77", want: street1Parts{full: "PO BOX 77", line: "PO BOX 77"}},
		{in: "p o box 77", want: street1Parts{full: "PO BOX 77", line: "PO BOX 77"}},
		{in: "Unit 2050 Box 4190", military: true, want: street1Parts{full: "UNIT 2050 BOX 4190", line: "UNIT 2050 BOX 4190"}},
		{in: "Unit 2050 Box 4190", want: street1Parts{full: "UNIT 2050 BOX 4190", line: "UNIT 2050 BOX 4190", problem: CodeMissingStreetNumber}},
		{in: "5th Avenue", want: street1Parts{full: "5TH AVENUE", line: "5TH AVENUE", problem: CodeMissingStreetNumber}},
		{in: "One Microsoft Way", want: street1Parts{full: "ONE MICROSOFT WAY", line: "ONE MICROSOFT WAY", problem: CodeMissingStreetNumber}},
		{in: "123", want: street1Parts{full: "123", line: "123", problem: CodeMissingStreet}},
		{in: "", want: street1Parts{problem: CodeMissingStreet}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := parseStreet1(tt.in, tt.military)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(street1Parts{})); diff != "" {
				t.Errorf("parseStreet1(%q, %v) mismatch (-want +got):\n%s", tt.in, tt.military, diff)
			}
		})
	}
}

func TestStandardizeStreet2(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Suite 3300":      "STE 3300",
		"apt. #4":         "APT 4",
		"#12":             "# 12",
		"2nd floor":       "FL 2",
		"Building C":      "BLDG C",
		"Dept. 7, Room 4": "DEPT 7 RM 4",
		"Bldg 5 Apt # 3":  "BLDG 5 APT 3",
		"Penthouse":       "PH",
		"Front Desk":      "FRONT DESK",
		"Apartment":       "APARTMENT",
		"c/o Jane Smith":  "C/O JANE SMITH",
		"  ":              "",
	}
	for in, want := range tests {
		if got := standardizeStreet2(in); got != want {
			t.Errorf("standardizeStreet2(%q) = %q, want %q", in, got, want)
		}
	}
}
