package upsfake

import (
	"fmt"
	"math"
	"strconv"
)

// fakeService is a UPS service the fake quotes and sells, with a made-up
// tariff: prices rise with the billable weight so tests can see that the
// weight sent was read.
type fakeService struct {
	code, description string
	base, perLb       int64 // cents
	days              int
	guaranteed        bool
}

// Service codes from Rating.yaml and Shipping.yaml (Shipment/Service/Code).
func domesticServices() []fakeService {
	return []fakeService{
		{code: "03", description: "UPS Ground", base: 1100, perLb: 120},
		{code: "12", description: "UPS 3 Day Select", base: 1980, perLb: 270, days: 3, guaranteed: true},
		{code: "02", description: "UPS 2nd Day Air", base: 2510, perLb: 340, days: 2, guaranteed: true},
		{code: "59", description: "UPS 2nd Day Air A.M.", base: 2890, perLb: 360, days: 2, guaranteed: true},
		{code: "13", description: "UPS Next Day Air Saver", base: 4120, perLb: 480, days: 1, guaranteed: true},
		{code: "01", description: "UPS Next Day Air", base: 4730, perLb: 530, days: 1, guaranteed: true},
		{code: "14", description: "UPS Next Day Air Early", base: 7950, perLb: 560, days: 1, guaranteed: true},
	}
}

func internationalServices(toCountry string) []fakeService {
	svcs := []fakeService{
		{code: "08", description: "UPS Worldwide Expedited", base: 6920, perLb: 910, days: 5, guaranteed: true},
		{code: "65", description: "UPS Worldwide Saver", base: 8310, perLb: 1060, days: 3, guaranteed: true},
		{code: "07", description: "UPS Worldwide Express", base: 8770, perLb: 1110, days: 2, guaranteed: true},
		{code: "54", description: "UPS Worldwide Express Plus", base: 11890, perLb: 1180, days: 2, guaranteed: true},
	}
	if toCountry == "CA" || toCountry == "MX" {
		// UPS Standard is the ground service to Canada and Mexico.
		svcs = append([]fakeService{{code: "11", description: "UPS Standard", base: 2450, perLb: 190, days: 5}}, svcs...)
	}
	return svcs
}

// laneServices are the services between two countries (the fake ships
// from the US and Puerto Rico only).
func laneServices(fromCountry, toCountry string) []fakeService {
	if fromCountry == toCountry {
		return domesticServices()
	}
	return internationalServices(toCountry)
}

func findService(svcs []fakeService, code string) (fakeService, bool) {
	for _, s := range svcs {
		if s.code == code {
			return s, true
		}
	}
	return fakeService{}, false
}

// Surcharges, in cents.
const (
	residentialSurcharge = 545
	signatureSurcharge   = 695
	// negotiatedPercent is the account's discount on the list price.
	negotiatedPercent = 85
)

// toPounds converts a UPS package weight to pounds.
func toPounds(value float64, unit string) float64 {
	switch unit {
	case "KGS":
		return value * 2.20462
	case "OZS":
		return value / 16
	}
	return value
}

// billablePounds is the larger of the actual and the dimensional weight
// (139 cubic inches per pound), rounded up to whole pounds, at least 1.
func billablePounds(actualLbs float64, dimsIn [3]float64) int64 {
	w := actualLbs
	if dimsIn[0] > 0 && dimsIn[1] > 0 && dimsIn[2] > 0 {
		w = math.Max(w, dimsIn[0]*dimsIn[1]*dimsIn[2]/139)
	}
	return max(int64(math.Ceil(w-1e-9)), 1)
}

// groundDays grows with the distance between the first digits of the ZIP codes.
func groundDays(fromZip, toZip string) int {
	a, errA := strconv.Atoi(first3(fromZip))
	b, errB := strconv.Atoi(first3(toZip))
	if errA != nil || errB != nil {
		return 5
	}
	d := a - b
	if d < 0 {
		d = -d
	}
	return min(1+d/200, 5)
}

func first3(z string) string {
	if len(z) < 3 {
		return z
	}
	return z[:3]
}

func amount(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }
