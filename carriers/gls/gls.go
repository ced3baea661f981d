// Package gls is GLS (General Logistics Systems), the parcel network of
// much of Europe: its connector's description, and its sandbox twin. The
// live connector, on GLS's ShipIT API (shipit-farm) with OAuth2 client
// credentials, is the next issue's ("European carriers live"); until then
// the carrier is test mode's only.
package gls

import (
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "GLS"

// Descriptor is the GLS connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "GLS", Slug: "gls",
		CredentialsHelp: "dev-portal.gls-group.net: an app with ShipIT; your contact id with GLS",
		// The countries GLS's own national companies ship from.
		Origins: []string{"AT", "BE", "BG", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
			"IT", "LT", "LU", "LV", "NL", "PL", "PT", "RO", "SE", "SI", "SK"},
		// Parcel numbers: 11 or 12 digits (the 12 FedEx's too, so they never
		// name GLS); TrackIDs: 8 letters and digits.
		TrackingNumbers:      []*regexp.Regexp{regexp.MustCompile(`^(\d{11}|[A-Z0-9]{8})$`)},
		OtherTrackingNumbers: []*regexp.Regexp{regexp.MustCompile(`^\d{12}$`)},
		TrackingNumberHint:   "11 or 12 digits, 8-character TrackID",
		Requirements:         requirements(),
		LabelFormats:         []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		LabelSizes:           []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Sandbox:              sandboxTariff(),
	}
}

// requirements: a name for the consignee and the shipper (ShipIT's Name1),
// and the consignee's email or phone for Express (GLS announces the
// delivery slot).
func requirements() []carriers.Requirement {
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "GLS requires the shipper's name or company (Name1)", Met: carriers.HasNameOrCompany(carriers.From)},
		{Field: "toAddress.name", Rule: "GLS requires the consignee's name or company (Name1)", Met: carriers.HasNameOrCompany(carriers.To)},
		{Field: "toAddress.phone", Rule: "GLS requires the consignee's email or phone for Express", Services: []string{"Express"},
			Met: func(s carriers.Shipment) bool {
				return strings.TrimSpace(s.To.Phone) != "" || strings.TrimSpace(s.To.Email) != ""
			}},
	}
}
