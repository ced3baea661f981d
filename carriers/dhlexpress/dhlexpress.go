// Package dhlexpress is DHL Express, worldwide express from any country:
// its connector's description, and its sandbox twin. The live connector,
// on the MyDHL API 3.1.1, is its own issue's ("DHL Express worldwide");
// until then the carrier is test mode's only.
package dhlexpress

import (
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DHLExpress"

// Descriptor is the DHL Express connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DHL Express", Slug: "dhlexpress",
		CredentialsHelp: "developer.dhl.com: MyDHL API credentials (username and password) and your 9-digit DHL Express account number",
		// Waybills: 10 digits; pieces JD and 18 digits.
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^(\d{10}|JD\d{18})$`)},
		TrackingNumberHint: "10 digits, JD…",
		Requirements:       requirements(),
		LabelFormats:       []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL},
		LabelSizes:         []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Sandbox:            sandboxTariff(),
	}
}

// requirements are what the MyDHL API's shipper and receiver details
// require: a person's name and a phone number for both.
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	phone := func(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
		return func(s carriers.Shipment) bool { return len(carriers.PhoneDigits(side(s).Phone)) >= 4 }
	}
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DHL Express requires the shipper's contact name (fullName)", Met: carriers.HasName(from)},
		{Field: "fromAddress.phone", Rule: "DHL Express requires the shipper's phone number", Met: phone(from)},
		{Field: "toAddress.name", Rule: "DHL Express requires the receiver's contact name (fullName)", Met: carriers.HasName(to)},
		{Field: "toAddress.phone", Rule: "DHL Express requires the receiver's phone number", Met: phone(to)},
		{Field: "toAddress.street1", Rule: "DHL Express requires the receiver's street (addressLine1)",
			Met: func(s carriers.Shipment) bool { return strings.TrimSpace(s.To.Street1) != "" }},
	}
}
