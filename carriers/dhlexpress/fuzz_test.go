package dhlexpress

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// Every parser of a DHL answer is fuzzed: whatever DHL (or something in
// front of it) answers, the adapter returns a value or an *carriers.Error
// of ErrFailed, and never panics.

// brokenSeeds are broken bodies of every kind.
var brokenSeeds = []string{
	``, `{`, `null`, `[]`, `"text"`, `{"products":null}`, `{"shipments":[]}`, `<html><body>502 Bad Gateway</body></html>`,
	`{"instance":"/expressapi/rates","detail":"999: Process failure occurred","title":"Internal Server Error","status":"500"}`,
	`{"products": nope}`,
}

// checkFailed asserts that a parser error is a *carriers.Error of kind
// ErrFailed.
func checkFailed(t *testing.T, err error) {
	t.Helper()
	var ce *carriers.Error
	if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrFailed) {
		t.Fatalf("error %v (%T) is not a *carriers.Error of ErrFailed", err, err)
	}
}

func FuzzParseRates(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"products":[{"productCode":"P","networkTypeCode":"TD","totalPrice":[{"currencyType":"BILLC","priceCurrency":"USD","price":12.34}],` +
		`"deliveryCapabilities":{"estimatedDeliveryDateAndTime":"2026-03-06T23:59:00","totalTransitDays":3},"weight":{}}]}`))
	f.Add([]byte(`{"products":[{"productCode":"W","totalPrice":[{"priceCurrency":"JPY","price":"1234"}],"deliveryCapabilities":{"totalTransitDays":"x"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rates, err := parseRates(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		for _, r := range rates {
			if r.CarrierRateCents < 0 || len(r.Currency) != 3 || r.Service == "" || r.EstimatedDays < 0 {
				t.Fatalf("rate %+v", r)
			}
		}
	})
}

func FuzzParseLandedCost(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"products":[{"detailedPriceBreakdown":[{"priceCurrency":"USD","breakdown":[{"name":"TOTAL DUTIES","typeCode":"DUTY","price":1.5,"priceCurrency":"USD"},` +
		`{"name":"TOTAL TAXES","typeCode":"TAX","price":20},{"name":"TOTAL FEES","price":"3"}]}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		duties, err := parseLandedCost(body, "USD")
		if err != nil {
			checkFailed(t, err)
			return
		}
		if duties < 0 {
			t.Fatalf("duties %d", duties)
		}
	})
}

func FuzzParseShipment(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s), uint8(1))
	}
	f.Add([]byte(`{"shipmentTrackingNumber":"1234567890","packages":[{"referenceNumber":1,"trackingNumber":"JD014600000000000001"},`+
		`{"referenceNumber":2,"trackingNumber":"JD014600000000000002"}],"documents":[{"typeCode":"label","imageFormat":"ZPL","content":"XlhBXlha"},`+
		`{"typeCode":"invoice","imageFormat":"PDF","content":"JVBERi0xLjQK"}]}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, pieces uint8) {
		n := int(pieces%4) + 1
		l, err := parseShipment(body, carriers.LabelZPL, n)
		sold := soldIn(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		if l.TrackingNumber == "" || l.TrackingNumber != sold.TrackingNumber || (l.Document == nil) == (l.PieceDocuments == nil) ||
			n > 1 && len(l.Pieces) != n {
			t.Fatalf("label %+v", l)
		}
	})
}

func FuzzTrackingUpdate(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s), "1234567890")
	}
	f.Add([]byte(`{"shipments":[{"shipmentTrackingNumber":"1234567890","estimatedDeliveryDate":"2026-03-05","events":[`+
		`{"date":"2026-03-03","time":"10:00:00","GMTOffset":"+01:00","typeCode":"PU","description":"Picked up","serviceArea":[{"code":"BER","description":"BERLIN - GERMANY"}]}],`+
		`"pieces":[{"trackingNumber":"JD1","events":[]},{"trackingNumber":"JD2","events":[{"date":"2026-03-03","time":"11:00:00","typeCode":"PL"}]}]}]}`), "JD2")
	f.Fuzz(func(t *testing.T, body []byte, tn string) {
		r, err := decodeTracking(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		up, _, err := r.update(carriers.NormalizeTrackingNumber(tn))
		if err != nil {
			checkFailed(t, err)
			return
		}
		for i, e := range up.Events {
			if !carriers.PlausibleScanTime(e.OccurredAt) || i > 0 && e.OccurredAt.Before(up.Events[i-1].OccurredAt) || utf8.RuneCountInString(e.Message) > carriers.ExcerptLimit+1 {
				t.Fatalf("events %+v", up.Events)
			}
		}
	})
}

func FuzzParsePickup(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"dispatchConfirmationNumbers":["PRG260304000001"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := parsePickup(body)
		if err != nil {
			if !errors.Is(err, carriers.ErrFailed) {
				t.Fatalf("%v", err)
			}
			return
		}
		if n == "" {
			t.Fatal("an empty confirmation number")
		}
	})
}

func FuzzAddressValidate(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"address":[{"countryCode":"DE","postalCode":"10117","cityName":"BERLIN"}]}`))
	f.Add([]byte(`{"warnings":["no match"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		areas, err := parseAddressValidate(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		r := verdict(verifier.Address{Street1: "Friedrichstr. 123", City: "Berlin", Zip: "10117", Country: "DE"}, areas)
		if r.Status != verifier.StatusWarning && r.Status != verifier.StatusError || len(r.Messages) == 0 {
			t.Fatalf("verdict %+v", r)
		}
	})
}

func FuzzParseErrorBody(f *testing.F) {
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"detail":"8003: Account not allowed","additionalDetails":["a","b","c","d","e","f","g"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		code, msg, _ := parseErrorBody(body, carriers.NewRedactor("951234567"))
		if len(code) > 4*carriers.ExcerptLimit || len(msg) > 4*carriers.ExcerptLimit {
			t.Fatalf("unbounded: %d, %d", len(code), len(msg))
		}
	})
}
