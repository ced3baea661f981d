package dhlexpress

import (
	"encoding/json"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// The customs part of a /shipments request: the export declaration DHL
// draws the commercial invoice from and sends to customs as paperless
// trade (WY), and the parties' registration numbers.

// exportDeclaration is content.exportDeclaration.
type exportDeclaration struct {
	LineItems        []lineItem `json:"lineItems"`
	Invoice          invoice    `json:"invoice"`
	ExportReason     string     `json:"exportReason,omitempty"`
	ExportReasonType string     `json:"exportReasonType,omitempty"`
	ShipmentType     string     `json:"shipmentType,omitempty"`
}

type lineItem struct {
	Number      int         `json:"number"`
	Description string      `json:"description"`
	Price       json.Number `json:"price"`
	// PreCalculatedLineItemTotalValue is the line's exact value: Price is
	// per unit, to DHL's thousandth, and quantity times it may be a
	// fraction of a cent off.
	PreCalculatedLineItemTotalValue json.Number     `json:"preCalculatedLineItemTotalValue"`
	Quantity                        lineQuantity    `json:"quantity"`
	CommodityCodes                  []commodityCode `json:"commodityCodes,omitempty"`
	ExportReasonType                string          `json:"exportReasonType,omitempty"`
	ManufacturerCountry             string          `json:"manufacturerCountry"`
	Weight                          lineWeight      `json:"weight"`
}

type lineQuantity struct {
	Value             int    `json:"value"`
	UnitOfMeasurement string `json:"unitOfMeasurement"`
}

type commodityCode struct {
	TypeCode string `json:"typeCode"`
	Value    string `json:"value"`
}

type lineWeight struct {
	NetValue   json.Number `json:"netValue"`
	GrossValue json.Number `json:"grossValue"`
}

type invoice struct {
	Number                   string       `json:"number"`
	Date                     string       `json:"date"`
	PreCalculatedTotalValues *invoiceSums `json:"preCalculatedTotalValues,omitempty"`
}

type invoiceSums struct {
	Goods   json.Number `json:"preCalculatedTotalGoodsValue"`
	Invoice json.Number `json:"preCalculatedTotalInvoiceValue"`
}

// exportReasons maps shipd's contents types onto the document's
// exportReasonType.
var exportReasons = map[string]string{
	carriers.ContentsMerchandise:   "commercial_purpose_or_sale",
	carriers.ContentsGift:          "gift",
	carriers.ContentsSample:        "sample",
	carriers.ContentsReturnedGoods: "return",
	carriers.ContentsDocuments:     "permanent",
	carriers.ContentsOther:         "permanent",
}

// exportReasonOf is the declaration's exportReasonType: a return label's
// goods go back ("return"), the others by their contents type.
func exportReasonOf(s carriers.Shipment) string {
	if s.Return {
		return "return"
	}
	if r, ok := exportReasons[s.Customs.ContentsType]; ok {
		return r
	}
	return "permanent"
}

// originOf is where an item was made: as declared, else the shipper's
// country.
func originOf(it carriers.CustomsItem, s carriers.Shipment) string {
	if o := strings.ToUpper(strings.TrimSpace(it.OriginCountry)); len(o) == 2 {
		return o
	}
	return carriers.NormalizeCountry(s.From.Country)
}

// declaration is the export declaration of a shipment declared to customs,
// its values in currency (the currency of the rate bought: the account's
// billing currency, in which shipd takes the declared values, see
// VARIANTS.md), reference being the invoice's number when the declaration
// names none. HS codes go without their dots ("6109.10" is 610910), as the
// outbound commodity code; a line's weight is its whole weight, net and
// gross alike (shipd declares one).
func declaration(s carriers.Shipment, currency, reference, date string) exportDeclaration {
	cu := s.Customs
	reason := exportReasonOf(s)
	d := exportDeclaration{
		ExportReason:     truncate(cu.ContentsExplanation, 30),
		ExportReasonType: reason,
		ShipmentType:     "personal",
	}
	if cu.ContentsType == carriers.ContentsMerchandise {
		d.ShipmentType = "commercial"
	}
	number := strings.TrimSpace(cu.InvoiceNumber)
	if number == "" {
		number = reference
	}
	d.Invoice = invoice{Number: truncate(number, 35), Date: date}
	var total int64
	for i, it := range cu.Items {
		w := kilograms(it.WeightOz * carriers.GramsPerOunce)
		li := lineItem{
			Number:                          i + 1,
			Description:                     truncate(it.Description, 512),
			Price:                           unitPrice(it.ValueCents, it.Quantity, currency),
			PreCalculatedLineItemTotalValue: money(it.ValueCents, currency),
			Quantity:                        lineQuantity{Value: max(it.Quantity, 1), UnitOfMeasurement: "PCS"},
			ExportReasonType:                reason,
			ManufacturerCountry:             originOf(it, s),
			Weight:                          lineWeight{NetValue: w, GrossValue: w},
		}
		if hs, ok := carriers.HSDigits(it.HSTariffNumber); ok {
			li.CommodityCodes = []commodityCode{{TypeCode: "outbound", Value: hs}}
		}
		d.LineItems = append(d.LineItems, li)
		total += it.ValueCents
	}
	sum := money(total, currency)
	d.Invoice.PreCalculatedTotalValues = &invoiceSums{Goods: sum, Invoice: sum}
	return d
}

// registrations completes the parties with the declaration's registration
// numbers: the exporter's EORI (EOR, issued by the country its first two
// letters name) and IOSS (SDT, issued by the member state its digits name)
// on the shipper; the importer's VAT number (VAT; importerTaxId when no
// importerVat is declared) on the receiver; exporterTaxId as the shipper's
// VAT number, or EIN from the US. For a return label the shipper is the
// customer and the receiver the merchant, whose declaration shipd reverses
// (shipping/returns.go).
func registrations(shipper, receiver *party, s carriers.Shipment) {
	cu := s.Customs
	origin, dest := carriers.NormalizeCountry(s.From.Country), carriers.NormalizeCountry(s.To.Country)
	add := func(p *party, typeCode, number, issuer string) {
		number = strings.TrimSpace(number)
		if number == "" {
			return
		}
		p.RegistrationNumbers = append(p.RegistrationNumbers,
			registrationNumber{TypeCode: typeCode, Number: truncate(number, 35), IssuerCountryCode: issuer})
	}
	if e := strings.ToUpper(strings.TrimSpace(cu.ExporterEORI)); len(e) > 2 {
		add(shipper, "EOR", e, e[:2])
	}
	if t := strings.TrimSpace(cu.ExporterTaxID); t != "" {
		kind := "VAT"
		if origin == "US" {
			kind = "EIN"
		}
		add(shipper, kind, t, origin)
	}
	if i := strings.ToUpper(strings.TrimSpace(cu.IOSS)); i != "" {
		add(shipper, "SDT", i, iossIssuer(i, dest))
	}
	vat := strings.TrimSpace(cu.ImporterVAT)
	kind := "VAT"
	if vat == "" {
		vat = strings.TrimSpace(cu.ImporterTaxID)
		if dest == "US" {
			kind = "EIN"
		}
	}
	add(receiver, kind, vat, dest)
}

// iossNumeric are the EU member states by their ISO 3166 numeric codes,
// which follow "IM" in an IOSS number and name the state that issued it.
var iossNumeric = map[string]string{
	"040": "AT", "056": "BE", "100": "BG", "191": "HR", "196": "CY", "203": "CZ", "208": "DK",
	"233": "EE", "246": "FI", "250": "FR", "276": "DE", "300": "GR", "348": "HU", "372": "IE",
	"380": "IT", "428": "LV", "440": "LT", "442": "LU", "470": "MT", "528": "NL", "616": "PL",
	"620": "PT", "642": "RO", "703": "SK", "705": "SI", "724": "ES", "752": "SE",
}

// iossIssuer is the member state that issued an IOSS number (IM and its
// numeric code), else the destination, the member state the goods are
// imported into.
func iossIssuer(ioss, dest string) string {
	if len(ioss) >= 5 {
		if c, ok := iossNumeric[ioss[2:5]]; ok {
			return c
		}
	}
	return dest
}

// usFiling is a US export's filing as the label prints it
// (content.USFilingTypeValue, at most 20 characters): the exemption legend
// or "AES" and the ITN.
func usFiling(s carriers.Shipment) string {
	if carriers.NormalizeCountry(s.From.Country) != "US" {
		return ""
	}
	e := strings.TrimSpace(s.Customs.EEL(s.From.Country))
	if itn, ok := carriers.ITN(e); ok {
		e = "AES " + itn
	}
	if len(e) > 20 {
		return ""
	}
	return e
}
