package ups

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// The fuzz targets feed every response parser arbitrary bytes, seeded with
// the documented bodies and the malformed ones met in the tests: a parser
// may refuse, never panic. Run one with
//
//	go test -run '^$' -fuzz '^FuzzParseRate$' -fuzztime 10s ./carriers/ups/

// malformedSeeds are shapes every parser must survive.
func malformedSeeds() []string {
	return []string{
		"", "null", "[]", "{}", `"x"`, "<html><body>502 Bad Gateway</body></html>", "{", `{"a":`,
		`{"RateResponse":null}`, `{"ShipmentResponse":{"ShipmentResults":null}}`, `{"trackResponse":{"shipment":null}}`,
		`{"response":{"errors":null}}`, `{"response":{"errors":{"code":1}}}`, "\x00\xff\xfe",
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},"RatedShipment":[{"Service":{"Code":"03","Description":""},"BillingWeight":{"UnitOfMeasurement":{"Code":"LBS","Description":"Pounds"},"Weight":"3.0"},"TransportationCharges":{"CurrencyCode":"USD","MonetaryValue":"14.60"},"ServiceOptionsCharges":{"CurrencyCode":"USD","MonetaryValue":"5.45"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"20.05"},"NegotiatedRateCharges":{"TotalCharge":{"CurrencyCode":"USD","MonetaryValue":"17.04"}},"TimeInTransit":{"PickupDate":"20260310","ServiceSummary":{"Service":{"Description":"UPS Ground"},"EstimatedArrival":{"Arrival":{"Date":"20260314","Time":"230000"},"BusinessDaysInTransit":"4","Pickup":{"Date":"20260310","Time":"160000"},"DayOfWeek":"SAT"}}},"RatedPackage":[{"Weight":"1.5"}]}]}}`,
		`{"RateResponse":{"RatedShipment":{"Service":{"Code":"02"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"7"},"GuaranteedDelivery":{"BusinessDaysInTransit":"2"}}}}`,
		`{"RateResponse":{"RatedShipment":[{"Service":{"Code":3},"TotalCharges":{"MonetaryValue":10}}]}}`,
		`{"RateResponse":{"RatedShipment":[{"Service":{"Code":"03"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"1e309"}}]}}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rates, err := parseRateResponse(body)
		if err != nil {
			return
		}
		for _, r := range rates {
			if r.Carrier != "UPS" || r.CarrierRateCents < 0 || !isCurrency(r.Currency) || r.EstimatedDays < 1 || r.ServiceCategory == "" {
				t.Fatalf("implausible rate %+v from %q", r, body)
			}
		}
	})
}

func FuzzParseShip(f *testing.F) {
	img := base64.StdEncoding.EncodeToString(fuzzGIF())
	for _, s := range append(malformedSeeds(),
		`{"ShipmentResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"},"TransactionReference":{"CustomerContext":"shp_1"}},"ShipmentResults":{"ShipmentCharges":{"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"14.60"}},"BillingWeight":{"UnitOfMeasurement":{"Code":"LBS","Description":"Pounds"},"Weight":"3.0"},"ShipmentIdentificationNumber":"1ZA1B2C30300000019","PackageResults":[{"TrackingNumber":"1ZA1B2C30300000019","ShippingLabel":{"ImageFormat":{"Code":"GIF","Description":"GIF"},"GraphicImage":"`+img+`","HTMLImage":"PGh0bWw+"}}]}}}`,
		`{"ShipmentResponse":{"ShipmentResults":{"PackageResults":{"TrackingNumber":"1Z1","ShippingLabel":{"GraphicImage":"`+img+`"}}}}}`,
		`{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":"1Z1","ShippingLabel":{"GraphicImage":"R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs="}}]}}}`,
		`{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":"1Z1","ShippingLabel":{"GraphicImage":"***"}}]}}}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseShipResponse(body)
		if err != nil {
			return
		}
		if res.trackingNumber == "" || res.shipmentID == "" {
			t.Fatalf("parsed without a tracking number or shipment id: %+v", res)
		}
		if len(res.image) < 4096 {
			// Small images are cheap to convert; the converter must
			// refuse or succeed, not panic.
			if pdf, err := testLabelPDF(res.image, testNow(), res.trackingNumber); err == nil && !strings.HasPrefix(string(pdf), "%PDF") {
				t.Fatal("converted label is not a PDF")
			}
		}
	})
}

func FuzzParseVoid(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"VoidShipmentResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},"SummaryResult":{"Status":{"Code":"1","Description":"Voided"}}}}`,
		`{"VoidShipmentResponse":{"SummaryResult":{"Status":{"Code":"1"}},"PackageLevelResults":[{"TrackingNumber":"1Z2","Status":{"Code":"0","Description":"Not Voided"}}]}}`,
		`{"VoidShipmentResponse":{"SummaryResult":{"Status":{"Code":1}}}}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseVoidResponse(body)
		if err == nil && !res.voided && res.message == "" {
			t.Fatalf("a refusal without a message from %q", body)
		}
	})
}

func FuzzParseTrack(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"trackResponse":{"shipment":[{"inquiryNumber":"1Z81WV380316886897","package":[{"trackingNumber":"1Z81WV380316886897","deliveryDate":[{"type":"DEL","date":"20240202"}],"deliveryTime":{"type":"DEL","endTime":"120435"},"activity":[{"location":{"address":{"city":"NEWARK","stateProvince":"CA","countryCode":"US","country":"US"},"slic":"9451"},"status":{"type":"D","description":"DELIVERED ","code":"FS","statusCode":"011"},"date":"20240202","time":"120435","gmtDate":"20240202","gmtOffset":"-08:00","gmtTime":"20:04:35"},{"location":{"address":{"countryCode":"US","country":"US"}},"status":{"type":"M","description":"Shipper created a label, UPS has not received the package yet. ","code":"MP","statusCode":"003"},"date":"20240131","time":"173405","gmtDate":"20240201","gmtOffset":"-08:00","gmtTime":"01:34:05"}],"currentStatus":{"description":"Delivered","code":"011"},"packageCount":1}]}]}}`,
		`{"trackResponse":{"shipment":[{"inquiryNumber":"1Z1","warnings":[{"code":"TW0001","message":"Tracking Information Not Found"}]}]}}`,
		`{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"date":"20240101","time":"25:61","gmtOffset":"+99:99"}]}]}]}}`,
		`{"trackResponse":{"shipment":{"package":{"activity":{"status":{"type":"O"},"date":"20240101"}}}}}`,
	) {
		f.Add([]byte(s))
	}
	vocabulary := carriers.Statuses()
	f.Fuzz(func(t *testing.T, body []byte) {
		u, found, err := parseTrackResponse(body, "1Z1")
		if err != nil || !found {
			return
		}
		if !slices.Contains(vocabulary, u.Status) {
			t.Fatalf("status %q is not in the vocabulary", u.Status)
		}
		for i, e := range u.Events {
			if !slices.Contains(vocabulary, e.Status) {
				t.Fatalf("event status %q is not in the vocabulary", e.Status)
			}
			if e.OccurredAt.Year() < 1970 {
				t.Fatalf("event at %v", e.OccurredAt)
			}
			if carriers.Excerpt(e.Message) != e.Message {
				t.Fatalf("event message %.80q is not an excerpt", e.Message)
			}
			if i > 0 && e.OccurredAt.Before(u.Events[i-1].OccurredAt) {
				t.Fatal("events are not oldest first")
			}
		}
	})
}

func FuzzParseError(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"response":{"errors":[{"code":"250002","message":"Invalid Authentication Information."}]}}`,
		`{"response":{"errors":[{"code":"111285","message":"The postal code 99999 is invalid for AK United States."},{"code":"111500","message":"The selected service is not valid."}]}}`,
		`{"response":{"errors":{"code":"190117","message":"The Shipment has already been voided"}}}`,
	) {
		f.Add([]byte(s), 400)
	}
	f.Add([]byte(`{"response":{"errors":[{"code":"20001","message":"General process failure"}]}}`), 500)
	f.Add([]byte(``), 429)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		_, _ = parseErrorBody(body)
		h := http.Header{"Retry-After": {string(body[:min(len(body), 12)])}, "Content-Type": {string(body)}}
		e := answerError(nil, opRate, status, h, body, testNow(), nil)
		if e == nil || e.Kind == nil || e.Message == "" || e.RetryAfter < 0 {
			t.Fatalf("incomplete error %+v", e)
		}
		if carriers.Excerpt(e.Code) != e.Code || carriers.Excerpt(e.Message) != e.Message {
			t.Fatalf("code %.80q or message %.80q is not an excerpt", e.Code, e.Message)
		}
	})
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"XAVResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},"ValidAddressIndicator":"","AddressClassification":{"Code":"1","Description":"Commercial"},"Candidate":[{"AddressClassification":{"Code":"1","Description":"Commercial"},"AddressKeyFormat":{"AddressLine":["26601 ALISO CREEK RD STE D"],"PoliticalDivision2":"ALISO VIEJO","PoliticalDivision1":"CA","PostcodePrimaryLow":"92656","PostcodeExtendedLow":"8049","Region":"ALISO VIEJO CA 92656-8049","CountryCode":"US"}}]}}`,
		`{"XAVResponse":{"AmbiguousAddressIndicator":"","Candidate":{"AddressKeyFormat":{"AddressLine":"1 MAIN ST","CountryCode":"US"}}}}`,
		`{"XAVResponse":{"NoCandidatesIndicator":""}}`,
		`{"XAVResponse":{"ValidAddressIndicator":null,"Candidate":[]}}`,
	) {
		f.Add([]byte(s))
	}
	in := usAddress()
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseXAVResponse(body)
		if err != nil {
			return
		}
		v := verdict(in, res)
		if v.Messages == nil || (v.Status == "error") == v.Deliverable {
			t.Fatalf("inconsistent verdict %+v", v)
		}
	})
}

// fuzzGIF is a small landscape label image for the seeds.
func fuzzGIF() []byte {
	img := image.NewPaletted(image.Rect(0, 0, 6, 4), color.Palette{color.White, color.Black})
	img.SetColorIndex(1, 1, 1)
	var buf bytes.Buffer
	_ = gif.Encode(&buf, img, nil) // encoding a valid paletted image does not fail
	return buf.Bytes()
}
