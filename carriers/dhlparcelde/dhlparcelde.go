// Package dhlparcelde is DHL Parcel Germany (DHL Paket, Deutsche Post DHL's
// parcel service from Germany): its connector's description, and its
// sandbox twin. The live connector, on DHL's Parcel DE Shipping API v2,
// Returns, Pickup and unified Tracking APIs, is the next issue's
// ("European carriers live"); until then the carrier is test mode's only.
package dhlparcelde

import (
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DHLParcelDE"

// maxGrams is DHL Paket's heaviest parcel, 31.5 kg.
const maxGrams = 31500

// Descriptor is the DHL Parcel Germany connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DHL Paket", Slug: "dhlparcelde",
		CredentialsHelp: "developer.dhl.com: an app with Parcel DE Shipping, Returns, Pickup and Tracking; your business customer portal user and 14-digit billing number",
		// DHL Paket ships from Germany.
		Origins: []string{"DE"},
		// Parcels: 00 and 18 digits (an SSCC), JJD and 18 or more digits, an
		// S10 code (CX123456789DE); and 12 or 20 digits, which FedEx's and
		// USPS's numbers share, so that they never name DHL.
		TrackingNumbers:      []*regexp.Regexp{regexp.MustCompile(`^(00\d{18}|JJD\d{18,}|[A-Z]{2}\d{9}DE)$`)},
		OtherTrackingNumbers: []*regexp.Regexp{regexp.MustCompile(`^(\d{12}|\d{20})$`)},
		TrackingNumberHint:   "12 or 20 digits, JJD…",
		Requirements:         requirements(),
		// DHL delivers parcels Monday to Saturday.
		SaturdayDelivery: true,
		LabelFormats:     []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL},
		LabelSizes:       []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Sandbox:          sandboxTariff(),
	}
}

// requirements are what DHL's Parcel DE Shipping API requires beyond the
// contract (parcel-de-shipping-v2_2.yaml): a name1 for shipper and
// consignee, a house number in the street of a German address
// (addressHouse), a company for Europaket (a business-to-business
// product), and the consignee's email or phone for the international
// products (delivery notices, customs).
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	international := []string{"PaketInternational", "WarenpostInternational"}
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DHL requires the shipper's name or company (name1)", Met: carriers.HasNameOrCompany(from)},
		{Field: "toAddress.name", Rule: "DHL requires the consignee's name or company (name1)", Met: carriers.HasNameOrCompany(to)},
		{Field: "fromAddress.street1", Rule: "DHL requires a house number in the street of a German address (addressHouse)", Met: houseNumber(from)},
		{Field: "toAddress.street1", Rule: "DHL requires a house number in the street of a German address (addressHouse)", Met: houseNumber(to)},
		{Field: "toAddress.company", Rule: "DHL's Europaket is a business-to-business product: the consignee's company is required", Services: []string{"Europaket"},
			Met: func(s carriers.Shipment) bool { return strings.TrimSpace(s.To.Company) != "" }},
		{Field: "toAddress.phone", Rule: "DHL requires the consignee's email or phone for its international products", Services: international,
			Met: func(s carriers.Shipment) bool {
				return strings.TrimSpace(s.To.Phone) != "" || strings.TrimSpace(s.To.Email) != ""
			}},
	}
}

// houseNumber: a German address's street carries its house number ("Hauptstr. 5").
func houseNumber(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
	return func(s carriers.Shipment) bool {
		a := side(s)
		return carriers.NormalizeCountry(a.Country) != "DE" || strings.ContainsAny(a.Street1, "0123456789")
	}
}
