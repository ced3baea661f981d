package fedex

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Wire types shared by the Rate and Ship requests. Field names and
// enumerations are those of FedEx's OpenAPI documents (rate/v1
// RateQuotes-Resource.json, ship/v1 Shipment-Resource.json).

// Request constants shipd always sends.
const (
	// pickupType: shipd neither schedules pickups nor assumes a standing
	// one, so parcels are dropped off; rates and purchases must agree on
	// it because FedEx prices pickups differently.
	pickupType = "DROPOFF_AT_FEDEX_LOCATION"
	// packagingType: shipd parcels are the customer's own boxes.
	packagingType = "YOUR_PACKAGING"
	weightUnits   = "LB"
	dimUnits      = "IN"
)

type accountNumber struct {
	Value string `json:"value"`
}

type weight struct {
	Units string      `json:"units"`
	Value json.Number `json:"value"`
}

type dimensions struct {
	Length int    `json:"length"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Units  string `json:"units"`
}

type money struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
}

type packageSpecialServices struct {
	SpecialServiceTypes []string `json:"specialServiceTypes"`
	SignatureOptionType string   `json:"signatureOptionType"`
}

type customerReference struct {
	CustomerReferenceType string `json:"customerReferenceType"`
	Value                 string `json:"value"`
}

type packageLineItem struct {
	// SequenceNumber numbers the packages of a multi-piece shipment (pieces.go).
	SequenceNumber         int                     `json:"sequenceNumber,omitempty"`
	GroupPackageCount      int                     `json:"groupPackageCount"`
	Weight                 weight                  `json:"weight"`
	Dimensions             *dimensions             `json:"dimensions,omitempty"`
	PackageSpecialServices *packageSpecialServices `json:"packageSpecialServices,omitempty"`
	CustomerReferences     []customerReference     `json:"customerReferences,omitempty"`
}

type commodity struct {
	Description          string `json:"description"`
	CountryOfManufacture string `json:"countryOfManufacture"`
	Quantity             int    `json:"quantity"`
	QuantityUnits        string `json:"quantityUnits"`
	Weight               weight `json:"weight"`
	CustomsValue         money  `json:"customsValue"`
	HarmonizedCode       string `json:"harmonizedCode,omitempty"`
}

type commercialInvoice struct {
	ShipmentPurpose string `json:"shipmentPurpose"`
	// TermsOfSale (the incoterm) and CustomerReferences (the invoice's
	// number) are set on the Ship API's invoice only (customs.go).
	TermsOfSale        string              `json:"termsOfSale,omitempty"`
	CustomerReferences []customerReference `json:"customerReferences,omitempty"`
}

type payment struct {
	PaymentType string `json:"paymentType"`
}

type customsClearance struct {
	CommercialInvoice commercialInvoice `json:"commercialInvoice"`
	DutiesPayment     *payment          `json:"dutiesPayment,omitempty"`
	IsDocumentOnly    bool              `json:"isDocumentOnly,omitempty"`
	TotalCustomsValue *money            `json:"totalCustomsValue,omitempty"`
	Commodities       []commodity       `json:"commodities"`
	ExportDetail      *exportDetail     `json:"exportDetail,omitempty"`
}

// poundsValue converts ounces to FedEx's LB unit: pounds with one decimal,
// rounded up to the next tenth so that a parcel is never declared lighter
// than it is (24 oz is 1.5 LB; 1 oz is 0.1 LB). The rounding works on
// integer tenths so float noise cannot push 24 oz to 1.6.
func poundsValue(oz float64) json.Number {
	tenths := int64(math.Ceil(oz*10/16 - 1e-9))
	if tenths < 1 {
		tenths = 1
	}
	return json.Number(strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10))
}

// inches rounds a dimension up to whole inches: FedEx takes whole numbers
// ("No implied decimal places") and rounding down would understate the size.
func inches(in float64) int {
	return int(math.Ceil(in - 1e-9))
}

// parcelLineItem is the one package of a shipd shipment.
func parcelLineItem(s carriers.Shipment) packageLineItem {
	item := packageLineItem{
		GroupPackageCount: 1,
		Weight:            weight{Units: weightUnits, Value: poundsValue(s.Parcel.WeightOz)},
	}
	if p := s.Parcel; p.LengthIn > 0 && p.WidthIn > 0 && p.HeightIn > 0 {
		// FedEx wants all three dimensions or none.
		item.Dimensions = &dimensions{Length: inches(p.LengthIn), Width: inches(p.WidthIn), Height: inches(p.HeightIn), Units: dimUnits}
	}
	if s.Options.SignatureConfirmation {
		// DIRECT: a signature at the delivery address, FedEx's equivalent
		// of signature confirmation (package special service SIGNATURE_OPTION).
		item.PackageSpecialServices = &packageSpecialServices{
			SpecialServiceTypes: []string{"SIGNATURE_OPTION"},
			SignatureOptionType: "DIRECT",
		}
	}
	return item
}

// shipmentPurposes maps shipd's customs contents types onto FedEx's
// commercialInvoice.shipmentPurpose enumeration.
var shipmentPurposes = map[string]string{
	carriers.ContentsMerchandise:   "SOLD",
	carriers.ContentsDocuments:     "NOT_SOLD",
	carriers.ContentsGift:          "GIFT",
	carriers.ContentsReturnedGoods: "REPAIR_AND_RETURN",
	carriers.ContentsSample:        "SAMPLE",
	carriers.ContentsOther:         "NOT_SOLD",
}

// customsFor builds the customs clearance detail. Harmonized codes go
// without their dots ("6109.10" is 610910), as FedEx writes them. shipd's item value and
// weight are for the whole line, which is what FedEx's customsValue ("for
// all items under the commodity") and commodity weight ("total weight")
// mean. The duties are billed to the recipient: shipd quotes carriage only.
func customsFor(s carriers.Shipment) *customsClearance {
	c := s.Customs
	if c == nil {
		return nil
	}
	purpose, ok := shipmentPurposes[c.ContentsType]
	if !ok {
		purpose = "NOT_SOLD"
	}
	cc := &customsClearance{
		CommercialInvoice: commercialInvoice{ShipmentPurpose: purpose},
		DutiesPayment:     &payment{PaymentType: "RECIPIENT"},
		IsDocumentOnly:    c.ContentsType == carriers.ContentsDocuments,
	}
	var total int64
	for _, it := range c.Items {
		origin := strings.ToUpper(strings.TrimSpace(it.OriginCountry))
		if origin == "" {
			origin = carriers.NormalizeCountry(s.From.Country)
		}
		qty := it.Quantity
		if qty < 1 {
			qty = 1
		}
		cc.Commodities = append(cc.Commodities, commodity{
			Description:          it.Description,
			CountryOfManufacture: origin,
			Quantity:             qty,
			QuantityUnits:        "PCS",
			Weight:               weight{Units: weightUnits, Value: poundsValue(it.WeightOz)},
			CustomsValue:         money{Amount: formatCents(it.ValueCents), Currency: "USD"},
			HarmonizedCode:       digits(it.HSTariffNumber),
		})
		total += it.ValueCents
	}
	cc.TotalCustomsValue = &money{Amount: formatCents(total), Currency: "USD"}
	return cc
}

// shipDate is today's date in UTC: FedEx refuses past ship dates, and for
// shippers in the Americas the UTC date is never behind their local date.
func (c *Carrier) shipDate() string {
	return c.now().UTC().Format("2006-01-02")
}
