package shipping

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

// reqNoPhones is a domestic shipment with names and no phone numbers: FedEx
// cannot sell it a label, nor UPS its Next Day Air Early.
func reqNoPhones() carriers.Shipment {
	return carriers.Shipment{
		From:   carriers.Address{Name: "Shop", Street1: "1 Market St", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"},
		To:     carriers.Address{Name: "Ada Lovelace", Street1: "350 Fifth Avenue", City: "New York", State: "NY", Zip: "10118", Country: "US"},
		Parcel: carriers.Parcel{WeightOz: 16},
	}
}

func reqRate(carrier, service, category string, cents int64) Rate {
	return Rate{Carrier: carrier, Service: service, ServiceCategory: category, CustomerPriceCents: cents, Currency: "USD"}
}

func TestWithoutUnbuyable(t *testing.T) {
	t.Parallel()
	q := Quote{Rates: []Rate{
		reqRate("USPS", "Priority", carriers.CategoryStandard, 900),
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 1000),
		reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100),
		reqRate("FedEx", "2Day", carriers.CategoryExpress, 2000),
		reqRate("UPS", "NextDayAirEarly", carriers.CategoryOvernight, 7000),
	}}.withoutUnbuyable(connectors.Catalog(), reqNoPhones())

	wantRates := []Rate{reqRate("USPS", "Priority", carriers.CategoryStandard, 900), reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100)}
	if diff := cmp.Diff(wantRates, q.Rates); diff != "" {
		t.Errorf("buyable rates (-want +got):\n%s", diff)
	}
	var blocked []string
	for _, b := range q.blocked {
		blocked = append(blocked, b.rate.Carrier+" "+b.rate.Service)
	}
	if diff := cmp.Diff([]string{"FedEx Ground", "FedEx 2Day", "UPS NextDayAirEarly"}, blocked); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
	want := []CarrierFailure{
		{Carrier: "FedEx", Kind: FailureRejected, Code: "missing_field", Message: "FedEx cannot be bought for this shipment: " +
			"FedEx requires the sender's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere (fromAddress.phone); " +
			"FedEx requires the recipient's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere (toAddress.phone)"},
		{Carrier: "UPS", Kind: FailureRejected, Code: "missing_field", Message: "UPS NextDayAirEarly cannot be bought for this shipment: " +
			"UPS requires the recipient's phone number (at most 15 digits) for Next Day Air Early (toAddress.phone)"},
	}
	if diff := cmp.Diff(want, q.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

func TestPickSkipsWhatCannotBeBought(t *testing.T) {
	t.Parallel()
	q := Quote{Rates: []Rate{
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 800), // the cheapest, but FedEx needs phones
		reqRate("USPS", "GroundAdvantage", carriers.CategoryEconomy, 900),
		reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100),
		reqRate("UPS", "NextDayAirEarly", carriers.CategoryOvernight, 7000),
	}}.withoutUnbuyable(connectors.Catalog(), reqNoPhones())
	str := func(s string) *string { return &s }

	cases := []struct {
		name      string
		sel       Selection
		want      Rate
		wantField string // the missing_field's path, "" when a rate is bought
	}{
		{"nothing: the cheapest that can be bought", Selection{}, reqRate("USPS", "GroundAdvantage", carriers.CategoryEconomy, 900), ""},
		{"a category: its cheapest that can be bought", Selection{ServiceCategory: str(carriers.CategoryEconomy)}, reqRate("USPS", "GroundAdvantage", carriers.CategoryEconomy, 900), ""},
		{"the carrier that cannot sell", Selection{Carrier: str("fedex")}, Rate{}, "fromAddress.phone"},
		{"its service", Selection{Carrier: str("FedEx"), Service: str("Ground")}, Rate{}, "fromAddress.phone"},
		{"a category only a blocked rate has", Selection{ServiceCategory: str(carriers.CategoryOvernight)}, Rate{}, "toAddress.phone"},
		{"another service of UPS", Selection{Carrier: str("UPS")}, reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100), ""},
	}
	for _, c := range cases {
		got, err := q.pick(c.sel)
		if c.wantField == "" {
			if err != nil || got != c.want {
				t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || len(ie.Issues) != 1 || ie.Issues[0].Path != c.wantField || !ie.Issues[0].Missing {
			t.Errorf("%s: err = %v, want one missing %s", c.name, err, c.wantField)
		}
	}

	// A carrier no rate is from: no_matching_service, as before.
	var none *NoMatchingServiceError
	if _, err := q.pick(Selection{Carrier: str("DHL")}); !errors.As(err, &none) {
		t.Errorf("carrier DHL: err = %v, want NoMatchingServiceError", err)
	}
}

func TestPickWhenNothingCanBeBought(t *testing.T) {
	t.Parallel()
	s := reqNoPhones()
	s.To.Name = ""
	q := Quote{Rates: []Rate{
		reqRate("USPS", "Priority", carriers.CategoryStandard, 900),
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 800),
	}}.withoutUnbuyable(connectors.Catalog(), s)
	dhl := "DHL"
	_, err := q.pick(Selection{Carrier: &dhl})
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Issues) != 1 {
		t.Fatalf("err = %v, want one issue", err)
	}
	// The cheapest blocked rate names its first field and lists the others.
	is := ie.Issues[0]
	if is.Path != "fromAddress.phone" || !is.Missing ||
		!strings.HasPrefix(is.Message, "is required to buy FedEx Ground: FedEx requires the sender's phone number") ||
		!strings.Contains(is.Message, "; toAddress.name is required too: FedEx requires the recipient's name or company") ||
		!strings.Contains(is.Message, "; toAddress.phone is required too") {
		t.Errorf("issue %+v", is)
	}
}
