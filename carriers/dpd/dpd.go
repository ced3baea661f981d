// Package dpd is DPD (Dynamic Parcel Distribution, of the Geopost group):
// its connector's description, and its sandbox twin. The live connector,
// on DPD's META-API (login with X-DPD-LOGIN, X-DPD-PASSWORD and
// X-DPD-BUCODE; shipments), is the next issue's ("European carriers
// live"); until then the carrier is test mode's only.
package dpd

import (
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DPD"

// Descriptor is the DPD connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DPD", Slug: "dpd",
		CredentialsHelp: "your DPD business unit: META-API login, password, business unit code (BUCODE) and customer id",
		// The countries of DPD's business units (META-API BUCODEs).
		Origins: []string{"AT", "BE", "BG", "CH", "CZ", "DE", "EE", "ES", "FR", "GB", "HR", "HU", "IE", "IT",
			"LT", "LV", "NL", "PL", "PT", "RO", "SI", "SK"},
		// Parcel numbers: 14 digits.
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^\d{14}$`)},
		TrackingNumberHint: "14 digits",
		Requirements:       requirements(),
		LabelFormats:       []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		LabelSizes:         []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Sandbox:            sandboxTariff(),
	}
}

// requirements: names of both parties, and the consignee's email or phone
// for the Express products (DPD's Predict and Express notices).
func requirements() []carriers.Requirement {
	express := []string{"Express830", "Express12", "Express18", "InternationalExpress"}
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DPD requires the sender's name or company", Met: carriers.HasNameOrCompany(carriers.From)},
		{Field: "toAddress.name", Rule: "DPD requires the recipient's name or company", Met: carriers.HasNameOrCompany(carriers.To)},
		{Field: "toAddress.phone", Rule: "DPD requires the recipient's email or phone for its Express products", Services: express,
			Met: func(s carriers.Shipment) bool {
				return strings.TrimSpace(s.To.Phone) != "" || strings.TrimSpace(s.To.Email) != ""
			}},
	}
}
