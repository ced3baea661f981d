package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Pickups as a new user books them (issue 44, item 3): the packages are
// the boxes, readyAt is in the address's own zone, and a carrier picks up
// where it ships from, not only in the US.

// location loads an IANA zone (the binary embeds the zone database).
func location(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// at is 09:00 (plus hours) of day's date in loc.
func at(day time.Time, loc *time.Location, hours int) string {
	return time.Date(day.Year(), day.Month(), day.Day(), 9+hours, 0, 0, 0, loc).Format(time.RFC3339)
}

// inZone moves a pickup body's readyAt and closeAt to the same wall clock
// in the zone of its address.
func inZone(t *testing.T, zone string) func(m map[string]any) {
	loc := location(t, zone)
	return func(m map[string]any) {
		for _, k := range []string{"readyAt", "closeAt"} {
			v, err := time.Parse(time.RFC3339, m[k].(string))
			if err != nil {
				t.Fatal(err)
			}
			m[k] = time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), 0, 0, loc).Format(time.RFC3339)
		}
	}
}

// A three-box shipment is three packages for the driver: packageCount
// defaults to the boxes of the shipmentIds, and a count below them is
// refused.
func TestPickupCountsBoxes(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	three := createLabel(t, b, b.token, labelBody(withField("carrier", "UPS"), withParcels(16, 24, 40)))
	one := createLabel(t, b, b.token, labelBody(withField("carrier", "UPS")))
	waitForStatus(t, b, b.token, three.ID, "purchased")
	waitForStatus(t, b, b.token, one.ID, "purchased")

	r := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("carrier", "UPS"), withField("shipmentIds", []string{three.ID, one.ID})))
	wantStatus(t, r, http.StatusCreated)
	var p pickupDoc
	r.Decode(t, &p)
	if p.PackageCount != 4 {
		t.Errorf("packageCount %d, want 4: three boxes and one", p.PackageCount)
	}

	m := wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("carrier", "UPS"),
		withField("shipmentIds", []string{three.ID}), withField("packageCount", 2))), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "packageCount" || !strings.Contains(m["error"].(string), "3 boxes") {
		t.Errorf("a count below the boxes: %v", m)
	}
}

// readyAt in another offset than the address's zone has at that time is
// refused, naming the zone and its offset; in a country of several zones,
// any of their offsets is the address's.
func TestPickupReadyAtInTheAddressZone(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	_, nyOffset := day.Zone()
	sf := map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"}
	toronto := map[string]any{"name": "Pierre Tremblay", "phone": "416 555 0123", "street1": "100 Queen St W", "city": "Toronto", "state": "ON", "zip": "M5H 2N2", "country": "CA"}
	la := location(t, "America/Los_Angeles")
	vancouver := location(t, "America/Vancouver")
	plus14 := time.FixedZone("", 14*3600)
	zulu := day.UTC()
	for _, tc := range []struct {
		name    string
		body    map[string]any
		message []string // "": accepted
	}{
		{"New York in UTC", pickupBody(day, withField("readyAt", zulu.Format(time.RFC3339)), withField("closeAt", zulu.Add(8*time.Hour).Format(time.RFC3339))),
			[]string{"America/New_York (UTC" + offsetText(nyOffset) + ")", "+00:00"}},
		{"San Francisco at +14:00", pickupBody(day, withField("address", sf), withField("readyAt", at(day, plus14, 0)), withField("closeAt", at(day, plus14, 8))),
			[]string{"America/Los_Angeles (UTC", "+14:00"}},
		{"San Francisco in its own zone", pickupBody(day, withField("address", sf), withField("readyAt", at(day, la, 0)), withField("closeAt", at(day, la, 8))), nil},
		{"Toronto at Vancouver's offset", pickupBody(day, withField("carrier", "UPS"), withField("address", toronto),
			withField("readyAt", at(day, vancouver, 0)), withField("closeAt", at(day, vancouver, 8))), nil},
		{"Toronto at +14:00", pickupBody(day, withField("carrier", "UPS"), withField("address", toronto),
			withField("readyAt", at(day, plus14, 0)), withField("closeAt", at(day, plus14, 8))), []string{"CA", "America/Toronto", "America/Vancouver"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.doT(t, "POST", "/api/v1/pickups", b.token, tc.body)
			if tc.message == nil {
				if r.Status != http.StatusCreated {
					t.Fatalf("status %d, want 201: %s", r.Status, r.Body)
				}
				return
			}
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422: %s", r.Status, r.Body)
			}
			m := r.JSON(t)
			if m["code"] != "invalid_field" || m["field"] != "readyAt" {
				t.Fatalf("body %s, want invalid_field on readyAt", r.Body)
			}
			for _, want := range tc.message {
				if !strings.Contains(m["error"].(string), want) {
					t.Errorf("message %q does not name %q", m["error"], want)
				}
			}
		})
	}
}

// offsetText is an offset in seconds as ±hh:mm.
func offsetText(seconds int) string {
	return time.Unix(0, 0).In(time.FixedZone("", seconds)).Format("-07:00")
}

// GLS, DPD and DHL Paket pick up in Europe, where they ship from; a
// carrier is still refused an address outside the countries it ships
// from (USPS in Germany).
func TestPickupAbroadWhereTheCarrierServes(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	berlin := location(t, "Europe/Berlin")
	address := map[string]any{"name": "Hanna Schmidt", "phone": "+49 30 1234567", "street1": "Friedrichstraße 43", "city": "Berlin", "zip": "10117", "country": "DE"}
	for _, carrier := range []string{"GLS", "DPD", "DHLParcelDE"} {
		r := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("carrier", carrier), withField("address", address),
			withField("readyAt", at(day, berlin, 0)), withField("closeAt", at(day, berlin, 8))))
		if r.Status != http.StatusCreated {
			t.Errorf("%s in Berlin: status %d, want 201: %s", carrier, r.Status, r.Body)
		}
	}
	m := wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("address", address),
		withField("readyAt", at(day, berlin, 0)), withField("closeAt", at(day, berlin, 8)))), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "address.country" || !strings.Contains(m["error"].(string), "USPS") {
		t.Errorf("USPS in Berlin: %v, want address.country naming USPS", m)
	}
	m = wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("carrier", "GLS"), withField("address", address))),
		http.StatusUnprocessableEntity, "invalid_field")
	_, berlinOffset := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, berlin).Zone()
	if m["field"] != "readyAt" || !strings.Contains(m["error"].(string), "Europe/Berlin (UTC"+offsetText(berlinOffset)+")") {
		t.Errorf("Berlin at New York's offset: %v, want readyAt naming Europe/Berlin", m)
	}
}
