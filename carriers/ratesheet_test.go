package carriers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

const sheetText = `service,destination,maxWeightG,price,currency
Paket,DE,2000,4.99,EUR
Paket,DE,5000,5.49,EUR
Paket,DE,31500,9.49,EUR
V01PAK,DE,5000,5.19,EUR
Paket,*,5000,15.90,EUR
Paket,*,31500,29.90,EUR
Paket,AT,1000,8.00,EUR
Yamato,JP,2000,1500,JPY
`

func mustSheet(t *testing.T, text string) *carriers.RateSheet {
	t.Helper()
	s, err := carriers.ParseRateSheet(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRateSheetPrice(t *testing.T) {
	t.Parallel()
	sheet := mustSheet(t, sheetText)
	tests := []struct {
		name, service, code, country string
		grams                        int
		minor                        int64
		currency                     string
		ok                           bool
	}{
		{"smallest bracket that holds", "Paket", "", "DE", 1500, 499, "EUR", true},
		{"bracket bound is inclusive", "Paket", "", "DE", 2000, 499, "EUR", true},
		{"next bracket", "Paket", "", "de", 2001, 549, "EUR", true},
		{"the product code's row is cheaper", "Paket", "V01PAK", "DE", 3000, 519, "EUR", true},
		{"service names compare without case", "paket", "", "DE", 100, 499, "EUR", true},
		{"another country: the * rows", "Paket", "", "FR", 3000, 1590, "EUR", true},
		{"the country's rows do not hold it: the * rows", "Paket", "", "AT", 3000, 1590, "EUR", true},
		{"the country's own rows first", "Paket", "", "AT", 900, 800, "EUR", true},
		{"too heavy for every row", "Paket", "", "DE", 31501, 0, "", false},
		{"a service without rows", "Europaket", "V54EPAK", "DE", 1000, 0, "", false},
		{"no decimals for yen", "Yamato", "", "JP", 10, 1500, "JPY", true},
	}
	for _, tt := range tests {
		minor, cur, ok := sheet.Price(tt.service, tt.code, tt.country, tt.grams)
		if minor != tt.minor || cur != tt.currency || ok != tt.ok {
			t.Errorf("%s: Price = %d %q %v, want %d %q %v", tt.name, minor, cur, ok, tt.minor, tt.currency, tt.ok)
		}
	}
	if minor, cur, ok := sheet.Prices("Paket", "", "DE", []int{1000, 3000, 20000}); minor != 499+549+949 || cur != "EUR" || !ok {
		t.Errorf("three pieces: %d %s %v, want each piece's bracket summed", minor, cur, ok)
	}
	if _, _, ok := sheet.Prices("Paket", "", "DE", []int{1000, 40000}); ok {
		t.Error("a piece no row holds priced the shipment")
	}
}

func TestRateSheetErrors(t *testing.T) {
	t.Parallel()
	const header = "service,destination,maxWeightG,price,currency\n"
	tests := []struct {
		name, text string
		want       carriers.RateSheetError
	}{
		{"empty", "", carriers.RateSheetError{Line: 1, Message: "no rows: the header, then a row per weight bracket"}},
		{"header only", header, carriers.RateSheetError{Line: 1, Message: "no rows: the header, then a row per weight bracket"}},
		{"another header", "service,country,grams,price,currency\nPaket,DE,1,1,EUR\n", carriers.RateSheetError{Line: 1, Message: "the header must be service,destination,maxWeightG,price,currency"}},
		{"too few fields", header + "Paket,DE,5000,5.49\n", carriers.RateSheetError{Line: 2, Message: "4 fields, want 5 (service,destination,maxWeightG,price,currency)"}},
		{"no service", header + "Paket,DE,5000,5.49,EUR\n ,DE,5000,5.49,EUR\n", carriers.RateSheetError{Line: 3, Column: 1, Message: "must be a service name or product code"}},
		{"a country name", header + "Paket,Germany,5000,5.49,EUR\n", carriers.RateSheetError{Line: 2, Column: 2, Message: "must be an ISO 3166 country code (DE) or *"}},
		{"kilograms", header + "Paket,DE,5.5,5.49,EUR\n", carriers.RateSheetError{Line: 2, Column: 3, Message: "must be a whole number of grams from 1 to 1000000"}},
		{"zero grams", header + "Paket,DE,0,5.49,EUR\n", carriers.RateSheetError{Line: 2, Column: 3, Message: "must be a whole number of grams from 1 to 1000000"}},
		{"a comma decimal", header + "Paket,DE,5000,\"5,49\",EUR\n", carriers.RateSheetError{Line: 2, Column: 4, Message: "must be a decimal of at most 2 decimals, 0 or more, below 1,000,000"}},
		{"three decimals of euros", header + "Paket,DE,5000,5.495,EUR\n", carriers.RateSheetError{Line: 2, Column: 4, Message: "must be a decimal of at most 2 decimals, 0 or more, below 1,000,000"}},
		{"negative", header + "Paket,DE,5000,-5,EUR\n", carriers.RateSheetError{Line: 2, Column: 4, Message: "must be a decimal of at most 2 decimals, 0 or more, below 1,000,000"}},
		{"decimals of yen", header + "Paket,JP,5000,5.5,JPY\n", carriers.RateSheetError{Line: 2, Column: 4, Message: "must be a decimal of at most 0 decimals, 0 or more, below 1,000,000"}},
		{"a currency sign", header + "Paket,DE,5000,5.49,€\n", carriers.RateSheetError{Line: 2, Column: 5, Message: "must be an ISO 4217 currency code (EUR)"}},
		{"broken quoting", header + "Paket,DE,5000,\"5.49,EUR\n", carriers.RateSheetError{Line: 2, Message: "not CSV: extraneous or missing \" in quoted-field"}},
		{"Latin-1", header + "Paket,DE,5000,5.49,EUR\nPaket Gro\xdf,DE,5000,5.49,EUR\n", carriers.RateSheetError{Line: 3, Column: 1, Message: "is not UTF-8 text"}},
	}
	for _, tt := range tests {
		_, err := carriers.ParseRateSheet(strings.NewReader(tt.text))
		var got *carriers.RateSheetError
		if !errors.As(err, &got) {
			t.Errorf("%s: error %v, want a RateSheetError", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	var many strings.Builder
	many.WriteString(header)
	for range carriers.MaxRateSheetRows + 1 {
		many.WriteString("Paket,DE,5000,5.49,EUR\n")
	}
	_, err := carriers.ParseRateSheet(strings.NewReader(many.String()))
	if err == nil || err.Error() != "rate sheet line 10002: more than 10000 rows" {
		t.Errorf("10,001 rows: %v", err)
	}
	// Windows line ends and a byte-order mark's absence are both fine; quoted fields too.
	if _, err := carriers.ParseRateSheet(strings.NewReader("service,destination,maxWeightG,price,currency\r\n\"Paket\",DE,5000,5.49,EUR\r\n")); err != nil {
		t.Errorf("CRLF sheet: %v", err)
	}
	// A spreadsheet's "CSV UTF-8" starts with a byte-order mark.
	if s, err := carriers.ParseRateSheet(strings.NewReader("\uFEFF" + header + "Paket,DE,5000,5.49,EUR\r\n")); err != nil || s.Rows() != 1 {
		t.Errorf("a sheet with a byte-order mark: %v", err)
	}
}

// unpricedCarrier answers like a carrier without a rating API.
type unpricedCarrier struct {
	carriers.Carrier
	rates []carriers.Rate
}

func (u unpricedCarrier) Name() string { return "DHLParcelDE" }
func (u unpricedCarrier) Rates(context.Context, carriers.Shipment) ([]carriers.Rate, error) {
	return append([]carriers.Rate(nil), u.rates...), nil
}

func TestWithRateSheet(t *testing.T) {
	t.Parallel()
	c := unpricedCarrier{rates: []carriers.Rate{
		{Carrier: "DHLParcelDE", Service: "Paket", ProductCode: "V01PAK", Unpriced: true, EstimatedDays: 1},
		{Carrier: "DHLParcelDE", Service: "Europaket", ProductCode: "V54EPAK", Unpriced: true, EstimatedDays: 2},
	}}
	shipment := carriers.Shipment{To: carriers.Address{Country: "DE"}, Parcel: carriers.Parcel{Metric: &carriers.MetricParcel{WeightG: 2500.2}}}

	rates, err := carriers.WithRateSheet(c, mustSheet(t, sheetText), "").Rates(context.Background(), shipment)
	if err != nil {
		t.Fatal(err)
	}
	want := []carriers.Rate{{Carrier: "DHLParcelDE", Service: "Paket", ProductCode: "V01PAK", CarrierRateCents: 519, Currency: "EUR", EstimatedDays: 1}}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("priced rates (-want +got):\n%s", diff)
	}

	_, err = carriers.WithRateSheet(c, nil, "DHLParcelDE has no rating API: set SHIPD_DHLPARCELDE_RATE_SHEET").Rates(context.Background(), shipment)
	var ce *carriers.Error
	if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrRejected) || ce.Message != "DHLParcelDE has no rating API: set SHIPD_DHLPARCELDE_RATE_SHEET" {
		t.Errorf("no sheet: %v, want ErrRejected saying where a sheet is set", err)
	}
	heavy := shipment
	heavy.Parcel = carriers.Parcel{Metric: &carriers.MetricParcel{WeightG: 40000}}
	_, err = carriers.WithRateSheet(c, mustSheet(t, sheetText), "").Rates(context.Background(), heavy)
	if err == nil || !strings.Contains(err.Error(), "the rate sheet prices none of Paket, Europaket for DE at 40000 g") {
		t.Errorf("nothing priced: %v", err)
	}

	// A carrier with a rating API: the sheet overrides the prices it has rows for.
	priced := unpricedCarrier{rates: []carriers.Rate{
		{Carrier: "DHLParcelDE", Service: "Paket", CarrierRateCents: 700, Currency: "EUR"},
		{Carrier: "DHLParcelDE", Service: "Kleinpaket", CarrierRateCents: 400, Currency: "EUR"},
	}}
	rates, err = carriers.WithRateSheet(priced, mustSheet(t, sheetText), "").Rates(context.Background(), shipment)
	if err != nil {
		t.Fatal(err)
	}
	want = []carriers.Rate{
		{Carrier: "DHLParcelDE", Service: "Paket", CarrierRateCents: 549, Currency: "EUR"},
		{Carrier: "DHLParcelDE", Service: "Kleinpaket", CarrierRateCents: 400, Currency: "EUR"},
	}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("overridden rates (-want +got):\n%s", diff)
	}
}

// Whatever the text, ParseRateSheet answers a sheet of rows or a
// RateSheetError at a line of the text, and never panics.
func FuzzParseRateSheet(f *testing.F) {
	f.Add(sheetText)
	f.Add("service,destination,maxWeightG,price,currency\nPaket,DE,5000,\"5.49\",EUR\n")
	f.Add("service,destination,maxWeightG,price,currency\nP,*,1,0.,KWD\n")
	f.Fuzz(func(t *testing.T, text string) {
		sheet, err := carriers.ParseRateSheet(strings.NewReader(text))
		var se *carriers.RateSheetError
		switch {
		case err == nil && sheet.Rows() == 0:
			t.Fatal("a sheet without rows")
		case err != nil && !errors.As(err, &se):
			t.Fatalf("error %v is not a RateSheetError", err)
		case se != nil && (se.Line < 1 || se.Line > strings.Count(text, "\n")+1 || se.Column < 0 || se.Column > 5):
			t.Fatalf("error at line %d column %d of a %d-line text", se.Line, se.Column, strings.Count(text, "\n")+1)
		}
	})
}
