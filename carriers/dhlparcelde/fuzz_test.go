package dhlparcelde

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// The fuzz targets feed every parser of DHL's answers arbitrary bytes,
// seeded with the documented bodies and the malformed ones met in the
// tests: a parser may refuse, never panic, and what it accepts is
// plausible. Run one with
//
//	go test -run '^$' -fuzz '^FuzzParseOrderAnswer$' -fuzztime 10s ./carriers/dhlparcelde/

// malformedSeeds are shapes every parser must survive.
func malformedSeeds() []string {
	return []string{
		"", "null", "[]", "{}", `"x"`, "<html><body>502 Bad Gateway</body></html>", "{", `{"a":`,
		`{"items":null}`, `{"items":[null]}`, `{"items":[{"sstatus":{"status":"x"}}]}`, `{"shipments":null}`,
		`{"status":{"status":{}}}`, `[{"errorCode":{}}]`, "\x00\xff\xfe",
	}
}

// refusedWell reports whether err is a carriers.Error of ErrFailed or
// ErrRejected: how a parser may refuse.
func refusedWell(err error) bool {
	var ce *carriers.Error
	return errors.As(err, &ce) && (errors.Is(err, carriers.ErrFailed) || errors.Is(err, carriers.ErrRejected))
}

func FuzzParseOrderAnswer(f *testing.F) {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 a label"))
	for _, s := range append(malformedSeeds(),
		`{"status":{"title":"OK","statusCode":200,"status":200},"items":[{"shipmentNo":"00340434161094000001","routingCode":"40327653113+99000943058020","sstatus":{"title":"OK","statusCode":200,"status":200},"label":{"b64":"`+pdf+`","fileFormat":"PDF","printFormat":"910-300-400/410"},"customsDoc":{"b64":"`+pdf+`","fileFormat":"PDF"}}]}`,
		`{"items":[{"shipmentNo":"00340434161094000001","sstatus":{"title":"OK","status":200},"label":{"zpl2":"^XA^FDx^FS^XZ","fileFormat":"ZPL2"}}]}`,
		`{"items":[{"sstatus":{"title":"Bad Request","status":400},"validationMessages":[{"property":"consignee","validationMessage":"not encodable"}]}]}`,
		`{"items":[{"shipmentNo":"1","sstatus":{"status":200},"label":{"b64":"***"}}]}`,
		`{"items":[{"shipmentNo":"1","sstatus":{"status":200},"label":{"b64":"PGh0bWw+"}}]}`,
	) {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, zpl bool) {
		format := carriers.LabelPDF
		if zpl {
			format = carriers.LabelZPL
		}
		l, err := parseOrderAnswer(200, body, format)
		if err != nil {
			if !refusedWell(err) {
				t.Fatalf("%q: %v is neither failed nor rejected", body, err)
			}
			return
		}
		switch {
		case l.TrackingNumber == "":
			t.Fatalf("a label without a number from %q", body)
		case format == carriers.LabelPDF && !bytes.HasPrefix(l.Document, []byte("%PDF-")):
			t.Fatalf("a PDF label that is none from %q", body)
		case format == carriers.LabelZPL && carriers.CheckZPL(l.Document) != nil:
			t.Fatalf("a ZPL label that is none from %q", body)
		}
	})
}

func FuzzParseReturnAnswer(f *testing.F) {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 a return label"))
	for _, s := range append(malformedSeeds(),
		`{"sstatus":{"title":"Created","status":201,"detail":"Created"},"shipmentNo":"999991587211","label":{"b64":"`+pdf+`"},"routingCode":"40327653113+99000933090010"}`,
		`{"shipmentNo":"999991587211","label":{}}`,
		`{"shipmentNo":999991587211}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		l, err := parseReturnAnswer(201, body)
		if err != nil {
			if !refusedWell(err) {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		if l.TrackingNumber == "" || l.CarrierShipmentID != retoureMarker || !bytes.HasPrefix(l.Document, []byte("%PDF-")) {
			t.Fatalf("implausible return label %+v from %q", l, body)
		}
	})
}

func FuzzParseTrackAnswer(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"shipments":[{"id":"00340434161094000001","service":"parcel-de","status":{"timestamp":"2026-03-12T16:30:00","statusCode":"delivered","status":"The shipment has been successfully delivered"},"events":[{"timestamp":"2026-03-12T16:30:00","statusCode":"delivered","status":"Delivered","location":{"address":{"countryCode":"DE","postalCode":"51147","addressLocality":"Köln"}}},{"timestamp":"2026-03-11T10:30:00+01:00","statusCode":"pre-transit","status":"Data received"}]}]}`,
		`{"shipments":[{"events":[{"timestamp":"2026-03-12","statusCode":"transit"}],"estimatedTimeOfDelivery":"2026-03-13T00:00:00Z"}]}`,
		`{"shipments":[{"events":[{"timestamp":"0000-01-01T00:00:00Z"}]}]}`,
		`{"shipments":[{"status":{"statusCode":7}}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		up, err := parseTrackAnswer(200, body, "00340434161094000001")
		if err != nil {
			if !refusedWell(err) {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		known := strings.Join(carriers.Statuses(), " ")
		if up.Status == "" || !strings.Contains(known, up.Status) {
			t.Fatalf("status %q from %q", up.Status, body)
		}
		for i, e := range up.Events {
			if !carriers.PlausibleScanTime(e.OccurredAt) || i > 0 && e.OccurredAt.Before(up.Events[i-1].OccurredAt) {
				t.Fatalf("events %+v from %q", up.Events, body)
			}
		}
	})
}

func FuzzParseManifestAnswer(f *testing.F) {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 a manifest"))
	for _, s := range append(malformedSeeds(),
		`{"status":{"title":"OK","status":200},"manifestDate":"2026-03-11","manifest":[{"b64":"`+pdf+`","fileFormat":"PDF","printFormat":"A4"}],"sheetNo":[{"billingNumber":"33333333330102","sheetNo":"20260311001"}],"items":[{"shipmentNo":"00340434161094000001","sheetNo":"20260311001","sstatus":{"title":"OK","status":200}}]}`,
		`{"manifestDate":"2026-03-11","manifest":[{"url":"https://example/x"}]}`,
		`{"manifest":[{"b64":"`+pdf+`"}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		form, err := parseManifestAnswer(200, body, []string{"00340434161094000001"})
		if err != nil {
			if !refusedWell(err) {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		if form.Number == "" || !bytes.HasPrefix(form.PDF, []byte("%PDF-")) {
			t.Fatalf("implausible form %q from %q", form.Number, body)
		}
	})
}

// The answers of closeouts, deletes and pickup cancels say yes, or refuse.
func FuzzParseStatusAnswers(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"status":{"title":"Multistatus","status":207},"items":[{"shipmentNo":"00340434161094000001","sstatus":{"title":"OK","status":200}},{"shipmentNo":"2","sstatus":{"title":"Bad Request","status":400,"detail":"Shipment not found."}}]}`,
		`{"status":{"title":"OK","statusCode":200,"status":200},"items":[{"shipmentNo":"00340434161094000001","sstatus":{"title":"OK","statusCode":200,"status":200}}]}`,
		`{"confirmedCancellations":[{"orderID":"0123456789abcdef0123456789abcdef","orderState":"STORNIERT","message":"ok"}],"failedCancellations":[]}`,
		`{"confirmedCancellations":[],"failedCancellations":[{"orderID":"0123456789abcdef0123456789abcdef","message":"already cancelled"}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, err := range []error{parseCloseoutAnswer(207, body), parseDeleteAnswer(200, body, "00340434161094000001"),
			parseCancelAnswer(200, body, "0123456789abcdef0123456789abcdef")} {
			if err != nil && !refusedWell(err) {
				t.Fatalf("%q: %v", body, err)
			}
		}
	})
}

func FuzzParsePickupAnswer(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"confirmation":{"type":"ORDERPICKUP","value":{"orderID":"0123456789abcdef0123456789abcdef","pickupDate":"2026-03-12","freeOfCharge":false,"pickupType":"EZA","confirmedShipments":[{"transportationType":"PAKET","orderDate":"2026-03-11T10:00:00"}]}}}`,
		`{"confirmation":{"type":"VALIDATION","value":{"pickupDate":"2026-03-12","freeOfCharge":true}}}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		conf, err := parsePickupAnswer(200, body)
		if err != nil {
			if !refusedWell(err) {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		if conf.ConfirmationNumber == "" {
			t.Fatalf("a pickup without an orderID from %q", body)
		}
	})
}

// Any error body yields a message of bounded length and never panics.
func FuzzParseErrorBody(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"title":"Unauthorized","status":401,"detail":"Invalid API key."}`,
		`{"status":{"title":"Bad Request","statusCode":400,"status":400},"items":[{"sstatus":{"title":"Bad Request","status":400},"validationMessages":[{"property":"consignee","validationMessage":"x","validationState":"Error"}]}]}`,
		`[{"errorCode":456,"title":"Unknown billingnumber","instance":"customerDetails.billingNumber","detail":"22222222225301"}]`,
		`{"error":"invalid_client","error_description":"Client authentication failed."}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := answerError(nil, "buy", 400, nil, body, testNow(), carriers.NewRedactor("secret-value"))
		if e.Message == "" || len(e.Message) > 4*carriers.ExcerptLimit+8 || !errors.Is(e, carriers.ErrRejected) {
			t.Fatalf("%q: %+v", body, e)
		}
	})
}

// Any street line parts into a street and a house number of DHL's bounds
// that keep every character of the line but the spaces.
func FuzzSplitStreet(f *testing.F) {
	for _, s := range []string{"Hauptstr. 5", "5 rue de Rivoli", "Am Markt 1-3", "Kurt-Schumacher-Str. 20a", "10 Downing Street", "Postfach", "", "12", "  7  b  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		street, house := splitStreet(line)
		if len([]rune(house)) > 10 {
			t.Fatalf("%q: house %q longer than 10", line, house)
		}
		squeeze := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, ",", "")), "") }
		if got, want := squeeze(street+house), squeeze(line); got != want && squeeze(house+street) != want {
			t.Fatalf("%q parted as %q + %q", line, street, house)
		}
	})
}
