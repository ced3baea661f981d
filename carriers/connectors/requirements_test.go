package connectors_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

// complete is a domestic shipment with everything any carrier asks for.
func complete() carriers.Shipment {
	return carriers.Shipment{
		From:   carriers.Address{Name: "Ada Lovelace", Street1: "1 Market St", City: "San Francisco", State: "CA", Zip: "94105", Country: "US", Phone: "(415) 555-0100"},
		To:     carriers.Address{Name: "Grace Hopper", Street1: "350 Fifth Avenue", City: "New York", State: "NY", Zip: "10118", Country: "US", Phone: "+1 212 555 0199"},
		Parcel: carriers.Parcel{WeightOz: 16},
	}
}

func abroad(s *carriers.Shipment) {
	s.To = carriers.Address{Name: "Pierre Tremblay", Street1: "100 Queen St W", City: "Toronto", State: "ON", Zip: "M5H 2N2", Country: "CA", Phone: "416-555-0123"}
	s.Customs = &carriers.Customs{ContentsType: carriers.ContentsGift, Items: []carriers.CustomsItem{{Description: "Mug", Quantity: 1, ValueCents: 1500, WeightOz: 8}}}
}

// unmetFields is the fields of Unmet, in the table's order.
func unmetFields(carrier, service string, s carriers.Shipment) []string {
	var out []string
	for _, r := range connectors.Catalog().Unmet(carrier, service, s) {
		out = append(out, r.Field)
	}
	return out
}

func TestRequirementsTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		carrier string
		service string
		mod     func(s *carriers.Shipment)
		want    []string
	}{
		{"FedEx, complete", "FedEx", "Ground", nil, nil},
		{"FedEx by another spelling", "FEDEX ", "Ground", func(s *carriers.Shipment) { s.From.Phone = "" }, []string{"fromAddress.phone"}},
		{"FedEx without phones", "FedEx", "Ground", func(s *carriers.Shipment) { s.From.Phone, s.To.Phone = "", "" }, []string{"fromAddress.phone", "toAddress.phone"}},
		{"FedEx, 7-digit US phone", "FedEx", "2Day", func(s *carriers.Shipment) { s.To.Phone = "555-0199" }, []string{"toAddress.phone"}},
		{"FedEx, 11 US digits not starting with 1", "FedEx", "Ground", func(s *carriers.Shipment) { s.To.Phone = "22125550199" }, []string{"toAddress.phone"}},
		{"FedEx, 12-digit phone abroad", "FedEx", "InternationalPriority", func(s *carriers.Shipment) { abroad(s); s.To.Country, s.To.Phone = "GB", "+44 20 7946 0958" }, nil},
		{"FedEx, 9-digit phone abroad", "FedEx", "InternationalPriority", func(s *carriers.Shipment) { abroad(s); s.To.Country, s.To.Phone = "GB", "207946095" }, []string{"toAddress.phone"}},
		{"FedEx, company instead of name", "FedEx", "Ground", func(s *carriers.Shipment) { s.From.Name, s.From.Company = " ", "Analytical Engines" }, nil},
		{"FedEx without a recipient", "FedEx", "Ground", func(s *carriers.Shipment) { s.To.Name = "" }, []string{"toAddress.name"}},

		{"UPS, domestic without phones", "UPS", "Ground", func(s *carriers.Shipment) { s.From.Phone, s.To.Phone = "", "" }, nil},
		{"UPS without names", "UPS", "Ground", func(s *carriers.Shipment) { s.From.Name, s.To.Name = "", "" }, []string{"fromAddress.name", "toAddress.name"}},
		{"UPS, company only, domestic", "UPS", "Ground", func(s *carriers.Shipment) { s.To.Name, s.To.Company = "", "Navy" }, nil},
		{"UPS, international, complete", "UPS", "WorldwideSaver", abroad, nil},
		{"UPS, international without phones", "UPS", "WorldwideSaver", func(s *carriers.Shipment) { abroad(s); s.From.Phone, s.To.Phone = "", "" }, []string{"fromAddress.phone", "toAddress.phone"}},
		{"UPS, international, company only", "UPS", "WorldwideSaver", func(s *carriers.Shipment) { abroad(s); s.To.Name, s.To.Company = "", "Maple Co" }, []string{"toAddress.name"}},
		{"UPS, international, 16 digits", "UPS", "WorldwideSaver", func(s *carriers.Shipment) { abroad(s); s.To.Phone = "1234567890123456" }, []string{"toAddress.phone"}},
		{"UPS Next Day Air Early without the recipient's phone", "UPS", "NextDayAirEarly", func(s *carriers.Shipment) { s.To.Phone = "" }, []string{"toAddress.phone"}},
		{"UPS Next Day Air Early, company only", "UPS", "NextDayAirEarly", func(s *carriers.Shipment) { s.To.Name, s.To.Company = "", "Navy" }, []string{"toAddress.name"}},
		{"UPS Next Day Air without the recipient's phone", "UPS", "NextDayAir", func(s *carriers.Shipment) { s.To.Phone = "" }, nil},

		{"USPS without phones", "USPS", "Priority", func(s *carriers.Shipment) { s.From.Phone, s.To.Phone = "", "" }, nil},
		{"USPS without names", "USPS", "Priority", func(s *carriers.Shipment) { s.From.Name, s.To.Name = "", "" }, []string{"fromAddress.name", "toAddress.name"}},
		{"USPS, company only", "USPS", "Priority", func(s *carriers.Shipment) { s.From.Name, s.From.Company = "", "Shop" }, nil},

		{"a carrier without a table", "DHL", "Express", func(s *carriers.Shipment) { s.From.Name, s.From.Phone = "", "" }, nil},
	}
	for _, c := range cases {
		s := complete()
		if c.mod != nil {
			c.mod(&s)
		}
		if diff := cmp.Diff(c.want, unmetFields(c.carrier, c.service, s)); diff != "" {
			t.Errorf("%s: unmet fields (-want +got):\n%s", c.name, diff)
		}
	}
}

// Every carrier the adapters and the sandbox name has a table, and every
// row of it says what it needs.
func TestRequirementsEveryCarrier(t *testing.T) {
	t.Parallel()
	for _, d := range connectors.All() {
		carrier, rows := d.ID, d.Requirements
		if len(rows) == 0 {
			t.Errorf("%s has no requirements", carrier)
		}
		for _, r := range rows {
			if r.Field == "" || r.Rule == "" || r.Met == nil {
				t.Errorf("%s: incomplete row %+v", carrier, r)
			}
		}
	}
}

func TestCheckRequirements(t *testing.T) {
	t.Parallel()
	fedex, _ := connectors.Catalog().Lookup("FedEx")
	if err := carriers.CheckRequirements("FedEx", fedex.Requirements, "Ground", complete()); err != nil {
		t.Fatalf("complete shipment: %v", err)
	}
	s := complete()
	s.From.Phone = ""
	err := carriers.CheckRequirements("FedEx", fedex.Requirements, "Ground", s)
	var ce *carriers.Error
	if !errors.Is(err, carriers.ErrRejected) || !errors.As(err, &ce) || ce.Carrier != "FedEx" || ce.Operation != "buy" {
		t.Fatalf("err = %#v, want a FedEx buy *Error of kind ErrRejected", err)
	}
	if want := "FedEx buy: FedEx requires the sender's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere (fromAddress.phone)"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}
