package gls

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// The fuzz targets feed every parser of a GLS answer arbitrary bytes,
// seeded with the documented answers and malformed ones: a parser may
// refuse, never panic, and what it accepts is plausible. Run one with
//
//	go test -run '^$' -fuzz '^FuzzParseCreated$' -fuzztime 10s ./carriers/gls/

func malformedSeeds() []string {
	return []string{"", "null", "[]", "{}", `"x"`, "<html>502</html>", "{", `{"a":`, "\x00\xff\xfe",
		`{"CreatedShipment":null}`, `{"CreatedShipment":{"ParcelData":null}}`, `{"parcels":[null]}`, `{"UnitItems":[{}]}`}
}

func FuzzParseAllowedServices(f *testing.F) {
	for _, s := range append(malformedSeeds(), `{"AllowedServices":[{"ProductName":"PARCEL","ServiceName":"service_flexdelivery"},{"ProductName":"EXPRESS"}]}`,
		`{"AllowedServices":[{"ProductName":7}]}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		products, err := parseAllowedServices(body)
		if err != nil {
			return
		}
		for p := range products {
			if p == "" {
				t.Fatal("an empty product")
			}
		}
	})
}

func FuzzParseCreated(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"CreatedShipment":{"ShipmentReference":["shp_1"],"ParcelData":[{"TrackID":"ZX000001","ParcelNumber":"90000000007","ShipmentUnitReference":["shp_1-1"]}],"PrintData":[{"Data":["JVBERi0xLjQK"],"LabelFormat":"PDF"}],"CustomerID":"1","PickupLocation":"DE"}}`,
		`{"CreatedShipment":{"ParcelData":[{"TrackID":"B","ParcelNumber":"2","ShipmentUnitReference":["shp_1-2"]},{"TrackID":"A","ParcelNumber":"1","ShipmentUnitReference":["shp_1-1"]}],"PrintData":[{"Data":["XlhBXlha","XlhBXlha"],"LabelFormat":"ZEBRA"}]}}`,
		`{"CreatedShipment":{"ParcelData":[{"TrackID":"A,B","ParcelNumber":"1"}],"PrintData":[{"Data":["***"],"LabelFormat":"PDF"}]}}`,
	) {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, body []byte, want int) {
		want = min(max(want, 1), 5)
		res, err := parseCreated(body, "shp_1", want)
		if err != nil {
			return
		}
		if len(res.parcels) != want || len(res.data) == 0 {
			t.Fatalf("%d parcels, %d documents for %d pieces", len(res.parcels), len(res.data), want)
		}
		sold := res.sold()
		if sold.TrackingNumber == "" || len(splitTrackIDs(sold.CarrierShipmentID)) != want {
			t.Fatalf("sold %+v", sold)
		}
		for _, f := range []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL, carriers.LabelPNG} {
			l, err := labelOf(res, f, 200)
			if err != nil {
				continue
			}
			doc, format := l.Doc()
			if format != f || (doc == nil && len(l.PieceDocuments) == 0) {
				t.Fatalf("a %s label of %s", format, f)
			}
			if f == carriers.LabelPDF && doc != nil && !bytes.HasPrefix(doc, []byte("%PDF-")) {
				t.Fatal("a PDF that is not one")
			}
		}
	})
}

func FuzzParseCancel(f *testing.F) {
	for _, s := range append(malformedSeeds(), `{"TrackID":"ZX000001","Result":"CANCELLED"}`, `{"TrackID":"ZX000001","Result":"SCANNED"}`, `{"Result":5}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if r, err := parseCancel(body); err == nil && r == "" {
			t.Fatal("an empty result")
		}
	})
}

func FuzzParseTrack(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"parcels":[{"requested":"36301917596","unitno":"36301917596","status":"PREADVICE","statusDateTime":"2024-10-11T15:24:57+0200","events":[{"code":"INTIAL.E48_DATA","city":"","postalCode":"","country":"DE","description":"x","eventDateTime":"2024-10-11T15:24:52+0200"}]}]}`,
		`{"parcels":[{"requested":"36301917596","errorCode":"E_404_01","errorMessage":"Resource Not Found"}]}`,
		`{"parcels":[{"requested":"36301917596","status":"FINAL","events":[{"code":"DELIVD.PARCELSHOP","eventDateTime":"0001-01-01T00:00:00Z"}]}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rs, err := parseTrack(body, []string{"36301917596"}, 200, nil)
		if err != nil {
			return
		}
		if len(rs) != 1 {
			t.Fatalf("%d results for 1 number", len(rs))
		}
		if rs[0].Err != nil {
			return
		}
		for i, e := range rs[0].Update.Events {
			if !carriers.PlausibleScanTime(e.OccurredAt) || (i > 0 && e.OccurredAt.Before(rs[0].Update.Events[i-1].OccurredAt)) {
				t.Fatalf("events out of order or implausible: %+v", rs[0].Update.Events)
			}
		}
	})
}

func FuzzParseFound(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"UnitItems":[{"TrackID":"ZX000002","ParcelNumber":"2","ShipmentReference":["shp_1"],"ShipmentUnitReference":["shp_1-2"],"InitialDate":"2026-03-10T14:04:05Z","Status":"PREADVICE"},{"TrackID":"ZX000001","ParcelNumber":"1","ShipmentReference":["shp_1"],"ShipmentUnitReference":["shp_1-1"],"Status":"PREADVICE"}]}`,
		`{"UnitItems":[{"TrackID":"ZX000001","ParcelNumber":"1","ShipmentReference":["shp_1"],"Status":"CANCELED"}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ps, err := parseFound(body, "shp_1", 2)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.trackID == "" || p.number == "" {
				t.Fatalf("a parcel without numbers: %+v", ps)
			}
		}
	})
}

func FuzzParseEndOfDay(f *testing.F) {
	for _, s := range append(malformedSeeds(),
		`{"Shipments":[{"Product":"PARCEL","Consignee":{"Address":{"Name1":"Grace Hopper","City":"München","CountryCode":"DE","Zipcode":"80331"}},"ShipmentUnit":[{"TrackID":"ZX000001","ParcelNumber":"90000000007","Weight":2.35}]}]}`,
		`{"Shipments":[{"ShipmentUnit":[{"ParcelNumber":"1","Weight":-1}]}]}`,
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		lines, err := parseEndOfDay(body)
		if err != nil {
			return
		}
		for _, l := range lines {
			if l.number == "" || l.kg < 0 {
				t.Fatalf("implausible line %+v", l)
			}
		}
		if len(lines) < 50 {
			if pdf, err := renderReport("EOD-1", "2026-03-10", berlin(), lines); err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("report: %v", err)
			}
		}
	})
}

func FuzzParseCollection(f *testing.F) {
	for _, s := range append(malformedSeeds(), `{"EstimatedPickUpDate":"2026-03-16T09:00:00+01:00"}`, `{"EstimatedPickUpDate":"0001-01-01T00:00:00Z"}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if at, err := parseCollection(body); err == nil && !carriers.PlausibleScanTime(at) {
			t.Fatalf("implausible day %v", at)
		}
	})
}

func FuzzParseError(f *testing.F) {
	for _, s := range append(malformedSeeds(), `{"errors":[{"message":"Invalid client identifier","type":"400"}]}`,
		`{"type":"about:blank","title":"Bad Request","status":400,"detail":"Failed to convert"}`,
		`{"fault":{"faultstring":"The Token has expired","detail":{"errorcode":"steps.jwt.TokenExpired"}}}`) {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(""), "ERROR_X")
	f.Fuzz(func(t *testing.T, body []byte, headerCode string) {
		h := http.Header{}
		if headerCode != "" {
			h.Set("error", headerCode)
		}
		for _, status := range []int{400, 401, 429, 500, 503} {
			e := answerError(nil, opBuy, status, h, body, time.Now(), carriers.NewRedactor("secret-value"))
			if e.Kind == nil || e.Message == "" || len(e.Message) > 4*carriers.ExcerptLimit+64 {
				t.Fatalf("error %+v", e)
			}
		}
	})
}
