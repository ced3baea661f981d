package dhlexpress

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// landedCostPath is POST /landed-cost (exp-api-landed-cost): the duties,
// taxes and fees the destination will charge on a shipment's goods.
const landedCostPath = "/landed-cost"

// landedCostRequest is supermodelIoLogisticsExpressLandedCostRequest.
type landedCostRequest struct {
	CustomerDetails struct {
		ShipperDetails  ratesAddress `json:"shipperDetails"`
		ReceiverDetails ratesAddress `json:"receiverDetails"`
	} `json:"customerDetails"`
	Accounts            []account `json:"accounts"`
	ProductCode         string    `json:"productCode,omitempty"`
	UnitOfMeasurement   string    `json:"unitOfMeasurement"`
	CurrencyCode        string    `json:"currencyCode"`
	IsCustomsDeclarable bool      `json:"isCustomsDeclarable"`
	// IsDTPRequested: the duties and taxes are paid by the shipper (DDP).
	IsDTPRequested              bool           `json:"isDTPRequested"`
	GetCostBreakdown            bool           `json:"getCostBreakdown"`
	ShipmentPurpose             string         `json:"shipmentPurpose,omitempty"`
	TransportationMode          string         `json:"transportationMode"`
	MerchantSelectedCarrierName string         `json:"merchantSelectedCarrierName"`
	Packages                    []ratesPackage `json:"packages"`
	Items                       []landedItem   `json:"items"`
}

type landedItem struct {
	Number                  int         `json:"number"`
	Name                    string      `json:"name,omitempty"`
	Description             string      `json:"description,omitempty"`
	ManufacturerCountry     string      `json:"manufacturerCountry"`
	Quantity                int         `json:"quantity"`
	QuantityType            string      `json:"quantityType"`
	UnitPrice               json.Number `json:"unitPrice"`
	UnitPriceCurrencyCode   string      `json:"unitPriceCurrencyCode"`
	CommodityCode           string      `json:"commodityCode,omitempty"`
	EstimatedTariffRateType string      `json:"estimatedTariffRateType,omitempty"`
	Weight                  json.Number `json:"weight"`
	WeightUnitOfMeasurement string      `json:"weightUnitOfMeasurement"`
}

// buildLandedCost asks the landed cost of s's goods in currency, the
// currency of its rates: the declared values are taken in it (see
// customs.go), and DHL answers in it. An item without an HS code is
// estimated at the highest rate of its description's likely codes
// (estimatedTariffRateType highest_rate, the document's way to go without
// a commodity code), so that a DDP price is never too low.
func (c *Carrier) buildLandedCost(s carriers.Shipment, currency, productCode string) landedCostRequest {
	r := landedCostRequest{
		Accounts:                    c.shipperAccount(),
		ProductCode:                 productCode,
		UnitOfMeasurement:           unitOfMeasurement,
		CurrencyCode:                currency,
		IsCustomsDeclarable:         true,
		IsDTPRequested:              true,
		GetCostBreakdown:            true,
		TransportationMode:          "air",
		MerchantSelectedCarrierName: "DHL",
		Packages:                    packagesOf(s),
	}
	if s.Customs.ContentsType == carriers.ContentsMerchandise {
		r.ShipmentPurpose = "commercial"
	} else {
		r.ShipmentPurpose = "personal"
	}
	r.CustomerDetails.ShipperDetails = toRatesAddress(s.From)
	r.CustomerDetails.ReceiverDetails = toRatesAddress(s.To)
	for i, it := range s.Customs.Items {
		item := landedItem{
			Number:                  i + 1,
			Name:                    truncate(it.Description, 512),
			Description:             truncate(it.Description, 255),
			ManufacturerCountry:     originOf(it, s),
			Quantity:                max(it.Quantity, 1),
			QuantityType:            "prt",
			UnitPrice:               unitPrice(it.ValueCents, it.Quantity, currency),
			UnitPriceCurrencyCode:   currency,
			Weight:                  kilograms(it.WeightOz * carriers.GramsPerOunce),
			WeightUnitOfMeasurement: unitOfMeasurement,
		}
		if hs, ok := carriers.HSDigits(it.HSTariffNumber); ok {
			item.CommodityCode = hs
		} else {
			item.EstimatedTariffRateType = "highest_rate"
		}
		r.Items = append(r.Items, item)
	}
	return r
}

// withDuties adds to each rate of a DDP shipment the duties, taxes and
// fees DHL's landed cost estimates for its goods, as DutiesCents and in
// its price. One estimate serves every product: the duties are of the
// goods, whichever product carries them (the document's landed cost
// answers one product, the one asked: the first rate's).
func (c *Carrier) withDuties(ctx context.Context, s carriers.Shipment, rates []carriers.Rate) ([]carriers.Rate, error) {
	currency := rates[0].Currency
	body, err := c.do(ctx, request{op: opRate, method: http.MethodPost, path: landedCostPath,
		body: c.buildLandedCost(s, currency, rates[0].ProductCode)})
	if err != nil {
		return nil, err
	}
	duties, err := parseLandedCost(body, currency)
	if err != nil {
		return nil, err
	}
	out := make([]carriers.Rate, 0, len(rates))
	for _, r := range rates {
		if r.Currency != currency {
			// A rate in another currency than the estimate's cannot carry
			// it; none does, DHL bills an account in one currency.
			continue
		}
		r.DutiesCents = duties
		r.CarrierRateCents += duties
		out = append(out, r)
	}
	return out, nil
}

// landedCostResponse is the part of the /landed-cost answer
// (supermodelIoLogisticsExpressRates) shipd reads: the shipment's totals of
// duties, taxes and fees in its detailed price breakdown.
type landedCostResponse struct {
	Products *[]struct {
		DetailedPriceBreakdown []struct {
			PriceCurrency string `json:"priceCurrency"`
			Breakdown     []struct {
				Name          string          `json:"name"`
				TypeCode      string          `json:"typeCode"`
				Price         carriers.Amount `json:"price"`
				PriceCurrency string          `json:"priceCurrency"`
			} `json:"breakdown"`
		} `json:"detailedPriceBreakdown"`
	} `json:"products"`
}

// landedTotals are the breakdown lines that total the destination's
// charges ("TOTAL DUTIES", "TOTAL TAXES", "TOTAL FEES", the document's
// charge types of /landed-cost); the lines they total (DUTY, GST,
// IMPORT_PROCESSING_CHARGE …) are not added again.
var landedTotals = map[string]bool{"TOTAL DUTIES": true, "TOTAL TAXES": true, "TOTAL FEES": true}

// parseLandedCost sums the landed cost's totals, in minor units of
// currency. A total in another currency, or an answer without any total,
// is unusable: a DDP price must not leave out what the destination charges.
func parseLandedCost(body []byte, currency string) (int64, error) {
	var r landedCostResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, malformed(opRate, "the landed cost answer does not parse: %v", err)
	}
	if r.Products == nil || len(*r.Products) == 0 {
		return 0, malformed(opRate, "the landed cost answer has no product")
	}
	var total int64
	found := false
	for _, d := range (*r.Products)[0].DetailedPriceBreakdown {
		for _, b := range d.Breakdown {
			if !landedTotals[strings.ToUpper(strings.TrimSpace(b.Name))] {
				continue
			}
			cur := strings.ToUpper(strings.TrimSpace(b.PriceCurrency))
			if cur == "" {
				cur = strings.ToUpper(strings.TrimSpace(d.PriceCurrency))
			}
			if cur != currency {
				return 0, malformed(opRate, "the landed cost's %s is in %q, not %s", carriers.Excerpt(b.Name), carriers.Excerpt(cur), currency)
			}
			minor, err := b.Price.Minor(exchangerates.MinorUnits(currency))
			if err != nil {
				return 0, malformed(opRate, "the landed cost's %s: %v", carriers.Excerpt(b.Name), err)
			}
			total += minor
			found = true
		}
	}
	if !found {
		return 0, malformed(opRate, "the landed cost answer has no total of duties, taxes or fees")
	}
	return total, nil
}
