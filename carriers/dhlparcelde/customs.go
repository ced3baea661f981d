package dhlparcelde

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// CustomsDetails (parcel-de-shipping-v2_2.yaml): the CN23's data, sent
// for a shipment across a customs border. DHL prints Paket
// International's CN23 as a document of its own (the answer's customsDoc)
// and Warenpost International's CN22 on the label.
type customsDetails struct {
	InvoiceNo           string      `json:"invoiceNo,omitempty"`
	ExportType          string      `json:"exportType"`
	ExportDescription   string      `json:"exportDescription,omitempty"`
	PostalCharges       money       `json:"postalCharges"`
	ShipperCustomsRef   string      `json:"shipperCustomsRef,omitempty"`
	ConsigneeCustomsRef string      `json:"consigneeCustomsRef,omitempty"`
	Items               []commodity `json:"items"`
}

type commodity struct {
	ItemDescription  string `json:"itemDescription"`
	CountryOfOrigin  string `json:"countryOfOrigin,omitempty"`
	HSCode           string `json:"hsCode,omitempty"`
	PackagedQuantity int    `json:"packagedQuantity"`
	ItemValue        money  `json:"itemValue"`
	ItemWeight       weight `json:"itemWeight"`
}

// money is a Value: a currency and a decimal amount.
type money struct {
	Currency string      `json:"currency"`
	Value    json.Number `json:"value"`
}

// customsCurrency is the currency of the declarations: shipd's customs
// values carry none, and a shipper in Germany invoices in euros (Value:
// "Recommended to use EUR where possible"; the goods' and the postal
// charges' currencies must be one).
const customsCurrency = "EUR"

// maxCommodities is the most lines a declaration takes (items maxItems).
const maxCommodities = 99

// euros is an amount of cents as a decimal of euros ("12.5" for 1250).
func euros(cents int64) json.Number {
	return json.Number(strconv.FormatFloat(float64(cents)/100, 'f', -1, 64))
}

// customsOf is the CN23 data of a declaration: each line's unit value and
// net weight (DHL multiplies them by the quantity: "If you ship 5
// t-shirts, you need to include the weight and value of one single
// shirt"), where shipd's lines hold the whole line's. The postal charges
// are 0: shipd charges the recipient nothing for postage.
func customsOf(cu *carriers.Customs, ref string) *customsDetails {
	if cu == nil {
		return nil
	}
	d := &customsDetails{
		InvoiceNo:           cut(cu.InvoiceNumber, 35),
		ExportType:          exportType(cu.ContentsType),
		PostalCharges:       money{Currency: customsCurrency, Value: euros(0)},
		ShipperCustomsRef:   cut(cu.ExporterTaxID, 35),
		ConsigneeCustomsRef: cut(cu.ImporterTaxID, 35),
	}
	if d.InvoiceNo == "" {
		d.InvoiceNo = cut(ref, 35)
	}
	if d.ExportType == "OTHER" {
		// "Mandatory if exporttype is 'OTHER'".
		d.ExportDescription = cut(cu.ContentsExplanation, 80)
		if d.ExportDescription == "" {
			d.ExportDescription = "Other"
		}
	}
	for i, it := range cu.Items {
		if i == maxCommodities {
			break
		}
		qty := max(it.Quantity, 1)
		unitGrams := int(math.Ceil(it.WeightOz*carriers.GramsPerOunce/float64(qty) - 1e-9))
		c := commodity{
			ItemDescription:  cut(it.Description, 256),
			CountryOfOrigin:  iso3(it.OriginCountry),
			PackagedQuantity: qty,
			ItemValue:        money{Currency: customsCurrency, Value: euros(int64(math.Round(float64(it.ValueCents) / float64(qty))))},
			ItemWeight:       weight{UOM: "g", Value: max(unitGrams, 1)},
		}
		if strings.TrimSpace(it.OriginCountry) == "" {
			c.CountryOfOrigin = ""
		}
		if hs, ok := carriers.HSDigits(it.HSTariffNumber); ok && len(hs) >= 6 && len(hs) <= 11 {
			c.HSCode = hs
		}
		if c.ItemDescription == "" {
			c.ItemDescription = cut(cu.ContentsType, 256)
		}
		d.Items = append(d.Items, c)
	}
	return d
}

// exportType is CustomsDetails.exportType of shipd's contents type.
func exportType(contents string) string {
	switch contents {
	case carriers.ContentsMerchandise:
		return "COMMERCIAL_GOODS"
	case carriers.ContentsGift:
		return "PRESENT"
	case carriers.ContentsSample:
		return "COMMERCIAL_SAMPLE"
	case carriers.ContentsDocuments:
		return "DOCUMENT"
	case carriers.ContentsReturnedGoods:
		return "RETURN_OF_GOODS"
	}
	return "OTHER"
}

// endorsement is what DHL does with an undeliverable parcel abroad: sent
// back (RETURN, DHL's default) or abandoned, as the declaration says.
func endorsement(cu *carriers.Customs) string {
	if cu != nil && cu.NonDeliveryOption == carriers.NonDeliveryAbandon {
		return "ABANDON"
	}
	return "RETURN"
}
