package carriers_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

func dates(t *testing.T, ss ...string) []time.Time {
	t.Helper()
	out := make([]time.Time, len(ss))
	for i, s := range ss {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = d
	}
	return out
}

// The observed dates published by OPM for 2026 and 2027 (2027 ends with New
// Year's Day 2028, a Saturday, observed on Friday December 31).
func TestFederalHolidays(t *testing.T) {
	t.Parallel()
	tests := map[int][]string{
		2026: {"2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03",
			"2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"},
		2027: {"2027-01-01", "2027-01-18", "2027-02-15", "2027-05-31", "2027-06-18", "2027-07-05",
			"2027-09-06", "2027-10-11", "2027-11-11", "2027-11-25", "2027-12-24", "2027-12-31"},
		// New Year's Day 2022 was observed in 2021; Juneteenth did not exist in 2020.
		2022: {"2022-01-17", "2022-02-21", "2022-05-30", "2022-06-20", "2022-07-04",
			"2022-09-05", "2022-10-10", "2022-11-11", "2022-11-24", "2022-12-26"},
		2020: {"2020-01-01", "2020-01-20", "2020-02-17", "2020-05-25", "2020-07-03",
			"2020-09-07", "2020-10-12", "2020-11-11", "2020-11-26", "2020-12-25"},
	}
	for year, want := range tests {
		if diff := cmp.Diff(dates(t, want...), carriers.FederalHolidays(year)); diff != "" {
			t.Errorf("FederalHolidays(%d) (-want +got):\n%s", year, diff)
		}
	}
	for _, d := range dates(t, "2027-12-31", "2026-07-03", "2026-11-26") {
		if !carriers.IsFederalHoliday(d.Add(15 * time.Hour)) {
			t.Errorf("IsFederalHoliday(%s) = false", d.Format(time.DateOnly))
		}
	}
	for _, d := range dates(t, "2026-07-04", "2026-11-27", "2027-12-30") {
		if carriers.IsFederalHoliday(d) {
			t.Errorf("IsFederalHoliday(%s) = true", d.Format(time.DateOnly))
		}
	}
}

// IsFederalHoliday looks at one month's holidays only; it must answer as
// the year's list does for every day.
func TestIsFederalHolidayAgreesWithTheList(t *testing.T) {
	t.Parallel()
	for year := 2018; year <= 2040; year++ {
		listed := map[time.Time]bool{}
		for _, h := range carriers.FederalHolidays(year) {
			listed[h] = true
		}
		for d := time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
			if got := carriers.IsFederalHoliday(d.Add(9 * time.Hour)); got != listed[d] {
				t.Errorf("IsFederalHoliday(%s) = %v, the list says %v", d.Format(time.DateOnly), got, listed[d])
			}
		}
	}
}

func TestShipDate(t *testing.T) {
	t.Parallel()
	tests := []struct{ now, want string }{
		{"2026-03-04T23:59:00Z", "2026-03-04"}, // a Wednesday: today
		{"2026-03-07T10:00:00Z", "2026-03-09"}, // Saturday: Monday
		{"2026-03-08T10:00:00Z", "2026-03-09"}, // Sunday: Monday
		{"2026-11-26T10:00:00Z", "2026-11-27"}, // Thanksgiving: Friday
		{"2026-12-24T10:00:00Z", "2026-12-24"}, // Christmas Eve is a working day
		{"2026-12-25T10:00:00Z", "2026-12-28"}, // Christmas (Friday): Monday
		// A time east of UTC is still the UTC date.
		{"2026-03-05T01:00:00+05:00", "2026-03-04"},
	}
	for _, tt := range tests {
		now, err := time.Parse(time.RFC3339, tt.now)
		if err != nil {
			t.Fatal(err)
		}
		if got := carriers.ShipDate(now).Format(time.DateOnly); got != tt.want {
			t.Errorf("ShipDate(%s) = %s, want %s", tt.now, got, tt.want)
		}
	}
}

func TestDeliveryDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ship      string
		days      int
		saturdays bool
		want      string
	}{
		{"next day", "2026-03-04", 1, false, "2026-03-05"},
		{"Friday plus one skips the weekend", "2026-03-06", 1, false, "2026-03-09"},
		{"Friday plus one on Saturday for USPS", "2026-03-06", 1, true, "2026-03-07"},
		{"Sunday never counts", "2026-03-06", 2, true, "2026-03-09"},
		{"Thanksgiving skipped", "2026-11-25", 1, false, "2026-11-27"},
		{"Independence Day observed Friday and the Saturday itself", "2026-07-02", 1, true, "2026-07-06"},
		{"Christmas and New Year's", "2026-12-24", 3, false, "2026-12-30"},
		{"New Year's 2028 observed on Friday 2027-12-31", "2027-12-30", 1, false, "2028-01-03"},
		{"the actual Saturday holiday is closed too", "2027-12-30", 1, true, "2028-01-03"},
		{"zero days", "2026-03-04", 0, false, "2026-03-04"},
		{"two weeks", "2026-03-02", 10, false, "2026-03-16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ship := dates(t, tt.ship)[0]
			if got := carriers.DeliveryDate(ship, tt.days, tt.saturdays).Format(time.DateOnly); got != tt.want {
				t.Errorf("DeliveryDate(%s, %d, %t) = %s, want %s", tt.ship, tt.days, tt.saturdays, got, tt.want)
			}
		})
	}
}
