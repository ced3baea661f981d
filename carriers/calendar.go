package carriers

import (
	"time"
)

// The delivery calendar: which days a carrier picks up and delivers, used
// for the sandbox's delivery dates and for a live rate whose carrier gave
// no date. Dates are calendar days, held as midnight UTC: a delivery date
// has no time of day, and UTC keeps the arithmetic free of DST steps.

// Date is t's calendar date in UTC, at midnight.
func Date(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// FederalHolidays returns the US federal holidays whose observed day falls
// in year, in order. A fixed-date holiday on a Saturday is observed the
// Friday before, on a Sunday the Monday after (5 U.S.C. 6103), so New
// Year's Day of the next year can be observed on December 31.
func FederalHolidays(year int) []time.Time {
	day := func(m time.Month, d int) time.Time { return time.Date(year, m, d, 0, 0, 0, 0, time.UTC) }
	hs := []time.Time{}
	if ny := observedDay(day(time.January, 1)); ny.Year() == year {
		hs = append(hs, ny)
	}
	hs = append(hs,
		nthWeekday(year, time.January, time.Monday, 3),  // Birthday of Martin Luther King, Jr.
		nthWeekday(year, time.February, time.Monday, 3), // Washington's Birthday
		lastWeekday(year, time.May, time.Monday),        // Memorial Day
	)
	if year >= 2021 { // Juneteenth became a federal holiday in 2021.
		hs = append(hs, observedDay(day(time.June, 19)))
	}
	hs = append(hs,
		observedDay(day(time.July, 4)),
		nthWeekday(year, time.September, time.Monday, 1),  // Labor Day
		nthWeekday(year, time.October, time.Monday, 2),    // Columbus Day
		observedDay(day(time.November, 11)),               // Veterans Day
		nthWeekday(year, time.November, time.Thursday, 4), // Thanksgiving Day
		observedDay(day(time.December, 25)),
	)
	if ny := observedDay(time.Date(year+1, time.January, 1, 0, 0, 0, 0, time.UTC)); ny.Year() == year {
		hs = append(hs, ny)
	}
	return hs
}

// observedDay moves a fixed-date holiday off the weekend.
func observedDay(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDate(0, 0, -1)
	case time.Sunday:
		return d.AddDate(0, 0, 1)
	}
	return d
}

// nthWeekday is the n-th wd of the month (n from 1).
func nthWeekday(year int, m time.Month, wd time.Weekday, n int) time.Time {
	first := time.Date(year, m, 1, 0, 0, 0, 0, time.UTC)
	offset := (int(wd) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, offset+7*(n-1))
}

// lastWeekday is the last wd of the month.
func lastWeekday(year int, m time.Month, wd time.Weekday) time.Time {
	last := time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC)
	return last.AddDate(0, 0, -((int(last.Weekday()) - int(wd) + 7) % 7))
}

// IsFederalHoliday reports whether d (a calendar date) is the observed day
// of a federal holiday. It looks only at the holidays of d's month, as
// FederalHolidays lists them: a quote asks it for every day of every
// service's transit, and building the year's list each time was most of a
// sandbox quote's CPU.
func IsFederalHoliday(d time.Time) bool {
	d = Date(d)
	year, month, _ := d.Date()
	on := func(h time.Time) bool { return h.Equal(d) }
	fixed := func(m time.Month, day int) bool {
		return on(observedDay(time.Date(year, m, day, 0, 0, 0, 0, time.UTC)))
	}
	switch month {
	case time.January:
		return fixed(time.January, 1) || on(nthWeekday(year, time.January, time.Monday, 3))
	case time.February:
		return on(nthWeekday(year, time.February, time.Monday, 3))
	case time.May:
		return on(lastWeekday(year, time.May, time.Monday))
	case time.June:
		return year >= 2021 && fixed(time.June, 19)
	case time.July:
		return fixed(time.July, 4)
	case time.September:
		return on(nthWeekday(year, time.September, time.Monday, 1))
	case time.October:
		return on(nthWeekday(year, time.October, time.Monday, 2))
	case time.November:
		return fixed(time.November, 11) || on(nthWeekday(year, time.November, time.Thursday, 4))
	case time.December:
		// The next New Year's Day is observed on December 31 when it is a Saturday.
		return fixed(time.December, 25) || on(observedDay(time.Date(year+1, time.January, 1, 0, 0, 0, 0, time.UTC)))
	}
	return false
}

// closed reports a day no carrier moves parcels on: a Sunday, the observed
// day of a federal holiday, or the actual date of a fixed-date holiday
// that falls on a Saturday (carriers close on the day itself too).
func closed(d time.Time) bool {
	if d.Weekday() == time.Sunday || IsFederalHoliday(d) {
		return true
	}
	if d.Weekday() != time.Saturday {
		return false
	}
	switch m, day := d.Month(), d.Day(); {
	case m == time.January && day == 1, m == time.July && day == 4, m == time.November && day == 11, m == time.December && day == 25:
		return true
	case m == time.June && day == 19:
		return d.Year() >= 2021
	}
	return false
}

// ShipDate is the day a shipment created at now leaves: today (UTC), or
// the next day carriers pick up when today is a Saturday, a Sunday or a
// federal holiday. Pickups run Monday to Friday for every carrier here.
func ShipDate(now time.Time) time.Time {
	d := Date(now)
	for d.Weekday() == time.Saturday || closed(d) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// DeliveryDate is the day a parcel shipped on ship arrives after days
// transit days: each day counted is a delivery day (never a Sunday or a
// holiday; a Saturday only when saturdays is set). Zero or fewer days is
// the ship date itself.
func DeliveryDate(ship time.Time, days int, saturdays bool) time.Time {
	d := Date(ship)
	for n := 0; n < days; {
		d = d.AddDate(0, 0, 1)
		if closed(d) || d.Weekday() == time.Saturday && !saturdays {
			continue
		}
		n++
	}
	return d
}
