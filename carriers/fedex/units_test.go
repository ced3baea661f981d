package fedex

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

func TestPoundsValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		oz   float64
		want json.Number
	}{
		{24, "1.5"}, {16, "1.0"}, {17, "1.1"}, {1, "0.1"}, {0.2, "0.1"}, {8, "0.5"},
		{32, "2.0"}, {33.6, "2.1"}, {2400, "150.0"}, {24.000000001, "1.5"},
	} {
		if got := poundsValue(tt.oz); got != tt.want {
			t.Errorf("poundsValue(%g oz) = %s LB, want %s", tt.oz, got, tt.want)
		}
	}
}

func TestInches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   float64
		want int
	}{{10, 10}, {7.5, 8}, {0.1, 1}, {12.0000000001, 12}} {
		if got := inches(tt.in); got != tt.want {
			t.Errorf("inches(%g) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestFormatCents(t *testing.T) {
	t.Parallel()
	for c, want := range map[int64]json.Number{0: "0.00", 7: "0.07", 2500: "25.00", 1299: "12.99", -150: "-1.50"} {
		if got := formatCents(c); got != want {
			t.Errorf("formatCents(%d) = %s, want %s", c, got, want)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"2018-02-02T12:01:00-07:00", time.Date(2018, 2, 2, 19, 1, 0, 0, time.UTC), false},
		{"2021-10-01T08:00:00", time.Date(2021, 10, 1, 8, 0, 0, 0, time.UTC), false},
		{"2021-10-01T08:00:00.123Z", time.Date(2021, 10, 1, 8, 0, 0, 123e6, time.UTC), false},
		{"2019-05-07", time.Date(2019, 5, 7, 0, 0, 0, 0, time.UTC), false},
		{"", time.Time{}, true}, {"05/07/2019", time.Time{}, true}, {"2019-13-01", time.Time{}, true},
	} {
		got, err := parseTime(tt.in)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestScanLocation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		loc  *scanLocation
		want string
	}{
		{nil, ""},
		{&scanLocation{}, ""},
		{&scanLocation{City: "SEATTLE", StateOrProvinceCode: "WA", CountryCode: "US"}, "SEATTLE, WA"},
		{&scanLocation{City: "Memphis", StateOrProvinceCode: "TN"}, "Memphis, TN"},
		{&scanLocation{City: "TORONTO", StateOrProvinceCode: "ON", CountryCode: "ca"}, "TORONTO, ON, CA"},
		{&scanLocation{City: "LONDON", CountryCode: "GB"}, "LONDON, GB"},
		{&scanLocation{CountryCode: "DE"}, "DE"},
	} {
		if got := tt.loc.String(); got != tt.want {
			t.Errorf("%+v = %q, want %q", tt.loc, got, tt.want)
		}
	}
}

func TestParseShipResponse(t *testing.T) {
	t.Parallel()
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 label"))
	// The documented answer's shape: masterTrackingNumber on the transaction
	// shipment, the label in pieceResponses[].packageDocuments[].
	single := `{"transactionId":"624deea6","customerTransactionId":"shipd-shp_1","output":{"transactionShipments":[{
		"masterTrackingNumber":"794953535000","serviceType":"FEDEX_GROUND","shipDatestamp":"2010-03-04",
		"pieceResponses":[{"trackingNumber":"794953535000","masterTrackingNumber":"794953535000","packageDocuments":[
			{"contentType":"LABEL","copiesToPrint":1,"docType":"PDF","trackingNumber":"794953535000","encodedLabel":"` + pdf + `"}]}]}]}}`
	got, err := parseShipResponse([]byte(single))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(carriers.Label{TrackingNumber: "794953535000", Document: []byte("%PDF-1.4 label"), Format: carriers.LabelPDF}, got); diff != "" {
		t.Errorf("label (-want +got):\n%s", diff)
	}

	// A piece of a multi-piece shipment: its own number, voided by the master's.
	multi := `{"output":{"transactionShipments":[{"masterTrackingNumber":"794953535000","pieceResponses":[
		{"trackingNumber":"794953535017","packageDocuments":[{"encodedLabel":"` + pdf + `"}]}]}]}}`
	got, err = parseShipResponse([]byte(multi))
	if err != nil {
		t.Fatal(err)
	}
	if got.TrackingNumber != "794953535017" || got.CarrierShipmentID != "794953535000" {
		t.Errorf("label = %q / %q, want piece 794953535017 with CarrierShipmentID 794953535000", got.TrackingNumber, got.CarrierShipmentID)
	}
}

func TestServiceTable(t *testing.T) {
	t.Parallel()
	names, codes := map[string]bool{}, map[string]bool{}
	valid := map[string]bool{}
	for _, c := range carriers.Categories() {
		valid[c] = true
	}
	for _, s := range services {
		if names[s.name] || codes[s.code] {
			t.Errorf("service %s/%s appears twice", s.code, s.name)
		}
		names[s.name], codes[s.code] = true, true
		if !valid[s.category] || s.typicalDays < 1 {
			t.Errorf("service %s: category %q, typical days %d", s.code, s.category, s.typicalDays)
		}
		if byName, ok := serviceByName(s.name); !ok || byName != s {
			t.Errorf("serviceByName(%q) = %+v, %v", s.name, byName, ok)
		}
	}
	// The sandbox's FedEx services keep their names and categories live.
	for name, category := range map[string]string{
		"Ground": "economy", "ExpressSaver": "standard", "2Day": "express", "StandardOvernight": "overnight",
		"InternationalEconomy": "standard", "InternationalPriority": "express",
	} {
		if s, ok := serviceByName(name); !ok || s.category != category {
			t.Errorf("sandbox service %s: live %+v, %v; want category %s", name, s, ok, category)
		}
	}
	if s, ok := serviceByCode("INTERNATIONAL_PRIORITY"); !ok || s.name != "InternationalPriority" {
		t.Errorf("the legacy INTERNATIONAL_PRIORITY code maps to %+v, %v", s, ok)
	}
	if _, ok := serviceByCode("SMART_POST"); ok {
		t.Error("SMART_POST is in the table; shipd cannot buy it")
	}
}
