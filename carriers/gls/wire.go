package gls

import (
	"math"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// address is ShipIT's Address (shipit-farm.yaml): Name1, Street, City and
// CountryCode required.
type address struct {
	Name1                string `json:"Name1"`
	Name2                string `json:"Name2,omitempty"`
	Name3                string `json:"Name3,omitempty"`
	CountryCode          string `json:"CountryCode"`
	Province             string `json:"Province,omitempty"`
	City                 string `json:"City"`
	Street               string `json:"Street"`
	ContactPerson        string `json:"ContactPerson,omitempty"`
	FixedLinePhonenumber string `json:"FixedLinePhonenumber,omitempty"`
	MobilePhoneNumber    string `json:"MobilePhoneNumber,omitempty"`
	Email                string `json:"Email,omitempty"`
	Zipcode              string `json:"Zipcode,omitempty"`
}

// addressOf is a shipd address as ShipIT takes it: the company (or the
// name) as Name1, the name as Name2 beside a company and as the contact
// person, the second street line as Name3 (ShipIT has no address line of
// its own for it; it prints under the names), the house number within
// Street (StreetNumber is optional). The consignee's phone goes as its
// mobile number, which GLS's delivery notices use; the shipper's as its
// fixed line.
func addressOf(a carriers.Address, consignee bool) address {
	name, company := strings.TrimSpace(a.Name), strings.TrimSpace(a.Company)
	out := address{
		Name1: company, CountryCode: carriers.NormalizeCountry(a.Country), Province: strings.TrimSpace(a.State),
		City: strings.TrimSpace(a.City), Street: strings.TrimSpace(a.Street1), Name3: strings.TrimSpace(a.Street2),
		ContactPerson: name, Email: strings.TrimSpace(a.Email), Zipcode: strings.TrimSpace(a.Zip),
	}
	if company == "" {
		out.Name1 = name
	} else if name != "" {
		out.Name2 = name
	}
	if phone := strings.TrimSpace(a.Phone); consignee {
		out.MobilePhoneNumber = phone
	} else {
		out.FixedLinePhonenumber = phone
	}
	return out
}

// location is ShipIT's Location: a country and a postal code.
type location struct {
	CountryCode string `json:"CountryCode"`
	Zipcode     string `json:"Zipcode,omitempty"`
}

func locationOf(a carriers.Address) location {
	return location{CountryCode: carriers.NormalizeCountry(a.Country), Zipcode: strings.TrimSpace(a.Zip)}
}

// kilograms is a parcel's weight as ShipIT's Weight, a number of
// kilograms: rounded up to the next 10 g (a label never declares less
// than the parcel weighs), at least 0.01.
func kilograms(p carriers.Parcel) float64 {
	g := carriers.MetricOf(p).WeightG
	return math.Max(math.Ceil(g/10-1e-9), 1) / 100
}

// printingOptions are the label ShipIT prints: ReturnLabels' LabelFormat
// and TemplateSet (both required).
type printingOptions struct {
	ReturnLabels returnLabels `json:"ReturnLabels"`
}

type returnLabels struct {
	TemplateSet string `json:"TemplateSet"`
	LabelFormat string `json:"LabelFormat"`
}

// labelFormats are ShipIT's LabelFormat and TemplateSet of shipd's
// formats: the PDF and PNG labels in GLS's own layout (TemplateSet NONE),
// ZPL for a 203 dpi Zebra printer (ZEBRA, ZPL_200), as shipd's ZPL labels
// are.
func printingFor(f carriers.LabelFormat) printingOptions {
	switch f {
	case carriers.LabelZPL:
		return printingOptions{ReturnLabels: returnLabels{TemplateSet: "ZPL_200", LabelFormat: "ZEBRA"}}
	case carriers.LabelPNG:
		return printingOptions{ReturnLabels: returnLabels{TemplateSet: "NONE", LabelFormat: "PNG"}}
	}
	return printingOptions{ReturnLabels: returnLabels{TemplateSet: "NONE", LabelFormat: "PDF"}}
}

// wireFormat is the LabelFormat ShipIT answers for f.
func wireFormat(f carriers.LabelFormat) string { return printingFor(f).ReturnLabels.LabelFormat }
