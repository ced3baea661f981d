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

// buyable is a rate a purchase can buy: no field missing.
func buyable(r Rate) Rate {
	r.MissingFields = []string{}
	return r
}

// needing is a rate whose purchase needs fields.
func needing(r Rate, fields ...string) Rate {
	r.MissingFields = fields
	return r
}

func TestWithMissingFields(t *testing.T) {
	t.Parallel()
	q := Quote{Rates: []Rate{
		reqRate("USPS", "Priority", carriers.CategoryStandard, 900),
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 1000),
		reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100),
		reqRate("FedEx", "2Day", carriers.CategoryExpress, 2000),
		reqRate("UPS", "NextDayAirEarly", carriers.CategoryOvernight, 7000),
	}}.withMissingFields(connectors.Catalog(), reqNoPhones())

	wantRates := []Rate{buyable(reqRate("USPS", "Priority", carriers.CategoryStandard, 900)), buyable(reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100))}
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
	// No carrier failed: the rates a purchase cannot buy are offered, each
	// with what it needs, rather than reported as failures.
	if len(q.Failures) != 0 {
		t.Errorf("failures %+v", q.Failures)
	}
	want := []Rate{
		buyable(reqRate("USPS", "Priority", carriers.CategoryStandard, 900)),
		needing(reqRate("FedEx", "Ground", carriers.CategoryEconomy, 1000), "fromAddress.phone", "toAddress.phone"),
		buyable(reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100)),
		needing(reqRate("FedEx", "2Day", carriers.CategoryExpress, 2000), "fromAddress.phone", "toAddress.phone"),
		needing(reqRate("UPS", "NextDayAirEarly", carriers.CategoryOvernight, 7000), "toAddress.phone"),
	}
	if diff := cmp.Diff(want, q.Offered().Rates); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
}

// A quick quote (postal codes only): every rate is offered, needing the
// streets and cities first, then the carrier's own fields; none can be
// bought.
func TestQuickQuoteMissingFields(t *testing.T) {
	t.Parallel()
	s := carriers.Shipment{
		From:   carriers.Address{State: "CA", Zip: "94105", Country: "US"},
		To:     carriers.Address{State: "NY", Zip: "10118", Country: "US"},
		Parcel: carriers.Parcel{WeightOz: 16},
	}
	q := Quote{Rates: []Rate{
		reqRate("USPS", "Priority", carriers.CategoryStandard, 900),
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 1000),
	}}.withMissingFields(connectors.Catalog(), s)
	if len(q.Rates) != 0 {
		t.Errorf("buyable without streets: %+v", q.Rates)
	}
	streets := []string{"fromAddress.street1", "fromAddress.city", "toAddress.street1", "toAddress.city"}
	want := []Rate{
		needing(reqRate("USPS", "Priority", carriers.CategoryStandard, 900), append(streets, "fromAddress.name", "toAddress.name")...),
		needing(reqRate("FedEx", "Ground", carriers.CategoryEconomy, 1000), append(streets, "fromAddress.name", "fromAddress.phone", "toAddress.name", "toAddress.phone")...),
	}
	if diff := cmp.Diff(want, q.Offered().Rates); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	// A purchase is refused naming the first field, with the rule.
	_, err := q.pick(Selection{})
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Issues) != 1 || ie.Issues[0].Path != "fromAddress.street1" || !ie.Issues[0].Missing ||
		!strings.HasPrefix(ie.Issues[0].Message, "is required to buy USPS Priority: a label needs the sender's street address") {
		t.Errorf("pick: %v", err)
	}
}

func TestPickSkipsWhatCannotBeBought(t *testing.T) {
	t.Parallel()
	q := Quote{Rates: []Rate{
		reqRate("FedEx", "Ground", carriers.CategoryEconomy, 800), // the cheapest, but FedEx needs phones
		reqRate("USPS", "GroundAdvantage", carriers.CategoryEconomy, 900),
		reqRate("UPS", "Ground", carriers.CategoryEconomy, 1100),
		reqRate("UPS", "NextDayAirEarly", carriers.CategoryOvernight, 7000),
	}}.withMissingFields(connectors.Catalog(), reqNoPhones())
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
			if err != nil || !cmp.Equal(got, buyable(c.want)) {
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
	}}.withMissingFields(connectors.Catalog(), s)
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
