package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// ratesPath is POST /rates (exp-api-rates-many): products and prices of a
// shipment of one or more pieces.
const ratesPath = "/rates"

// maxPieces is the most packages a MyDHL shipment has.
const maxPieces = 999

// Value-added services shipd sends (serviceCode; /rates lists them per
// product).
const (
	// serviceDutyTaxPaid (DD, DUTY TAX PAID) bills the destination's duties
	// and taxes to the account: a DDP shipment.
	serviceDutyTaxPaid = "DD"
	// serviceSignature (SF, DIRECT SIGNATURE): the receiver signs in person.
	serviceSignature = "SF"
	// servicePaperless (WY, PAPERLESS TRADE) sends the commercial invoice
	// to customs electronically.
	servicePaperless = "WY"
)

// rateRequest is supermodelIoLogisticsExpressRateRequest.
type rateRequest struct {
	CustomerDetails struct {
		ShipperDetails  ratesAddress `json:"shipperDetails"`
		ReceiverDetails ratesAddress `json:"receiverDetails"`
	} `json:"customerDetails"`
	Accounts                   []account      `json:"accounts"`
	PlannedShippingDateAndTime string         `json:"plannedShippingDateAndTime"`
	UnitOfMeasurement          string         `json:"unitOfMeasurement"`
	IsCustomsDeclarable        bool           `json:"isCustomsDeclarable"`
	NextBusinessDay            bool           `json:"nextBusinessDay"`
	Packages                   []ratesPackage `json:"packages"`
	ValueAddedServices         []valueAdded   `json:"valueAddedServices,omitempty"`
	EstimatedDeliveryDate      *eddRequest    `json:"estimatedDeliveryDate,omitempty"`
}

// valueAdded is a value-added service asked for by its serviceCode.
type valueAdded struct {
	ServiceCode string `json:"serviceCode"`
}

// eddRequest asks for the estimated delivery date of each product.
type eddRequest struct {
	IsRequested bool   `json:"isRequested"`
	TypeCode    string `json:"typeCode"`
}

// checkShipment refuses what DHL Express could not rate or ship at all.
func checkShipment(s carriers.Shipment) error {
	for i, p := range s.AllPieces() {
		if p.WeightOz <= 0 {
			return fmt.Errorf("dhlexpress: piece %d: weight must be greater than 0 (got %g oz): %w", i+1, p.WeightOz, carriers.ErrInvalidShipment)
		}
	}
	if n := s.PieceCount(); n > maxPieces {
		return fmt.Errorf("dhlexpress: %d pieces, DHL Express takes at most %d under one waybill: %w", n, maxPieces, carriers.ErrInvalidShipment)
	}
	if carriers.CustomsRequired(s.From, s.To) && s.Customs == nil {
		return fmt.Errorf("dhlexpress: shipment from %s to %s: %w",
			carriers.NormalizeCountry(s.From.Country), carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	return nil
}

// valueAddedServices are the services a shipment asks for, on its quote
// and its label alike, so that the price quoted is the price billed: DD for
// a DDP shipment (landedCost), SF for a signature. The paperless invoice
// (WY) is asked on the label only: it costs nothing, and asking it of
// /rates would drop every product of a lane DHL has no paperless trade on.
func valueAddedServices(s carriers.Shipment) []valueAdded {
	var out []valueAdded
	if landedCost(s) {
		out = append(out, valueAdded{ServiceCode: serviceDutyTaxPaid})
	}
	if s.Options.SignatureConfirmation {
		out = append(out, valueAdded{ServiceCode: serviceSignature})
	}
	return out
}

// landedCost reports whether a shipment's rates must include the duties and
// taxes: goods crossing a customs border DDP, whose duties the account pays.
func landedCost(s carriers.Shipment) bool {
	return declarable(s) && s.Customs.DDP()
}

func (c *Carrier) buildRateRequest(s carriers.Shipment) rateRequest {
	r := rateRequest{
		Accounts:                   c.shipperAccount(),
		PlannedShippingDateAndTime: c.shippingTime(s),
		UnitOfMeasurement:          unitOfMeasurement,
		IsCustomsDeclarable:        declarable(s),
		// A quote after the day's cutoff still lists the products, from the
		// next day DHL picks up.
		NextBusinessDay:    true,
		Packages:           packagesOf(s),
		ValueAddedServices: valueAddedServices(s),
		// QDDC: the date DHL commits to, customs clearance included.
		EstimatedDeliveryDate: &eddRequest{IsRequested: true, TypeCode: "QDDC"},
	}
	r.CustomerDetails.ShipperDetails = toRatesAddress(s.From)
	r.CustomerDetails.ReceiverDetails = toRatesAddress(s.To)
	return r
}

// Rates quotes every DHL Express product shipd sells that DHL offers for the
// shipment, in the currency DHL bills the account in. A DDP shipment's
// rates include the duties and taxes DHL's landed cost estimates
// (landedcost.go), as DutiesCents.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := checkShipment(s); err != nil {
		return nil, err
	}
	body, err := c.do(ctx, request{op: opRate, method: http.MethodPost, path: ratesPath, body: c.buildRateRequest(s)})
	if err != nil {
		return nil, c.scrub(err)
	}
	rates, err := parseRates(body)
	if err != nil {
		return nil, c.scrub(err)
	}
	if landedCost(s) && len(rates) > 0 {
		if rates, err = c.withDuties(ctx, s, rates); err != nil {
			return nil, c.scrub(err)
		}
	}
	return carriers.DropZeroRates(c.log, Name, rates)
}

// ratesResponse is the part of supermodelIoLogisticsExpressRates shipd
// reads. The delivery capabilities are decoded leniently: a field of an
// unexpected type there only loses the estimate, while the product and
// its price must be exactly right.
type ratesResponse struct {
	Products *[]product `json:"products"`
}

type product struct {
	ProductCode          string       `json:"productCode"`
	ProductName          string       `json:"productName"`
	NetworkTypeCode      string       `json:"networkTypeCode"`
	TotalPrice           []totalPrice `json:"totalPrice"`
	DeliveryCapabilities struct {
		EstimatedDeliveryDateAndTime string `json:"estimatedDeliveryDateAndTime"`
		TotalTransitDays             int    `json:"totalTransitDays"`
	} `json:"-"`
}

type totalPrice struct {
	CurrencyType  string          `json:"currencyType"`
	PriceCurrency string          `json:"priceCurrency"`
	Price         carriers.Amount `json:"price"`
}

// UnmarshalJSON reads deliveryCapabilities leniently (see ratesResponse).
func (p *product) UnmarshalJSON(b []byte) error {
	type strict product
	var aux struct {
		strict
		DeliveryCapabilities json.RawMessage `json:"deliveryCapabilities"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*p = product(aux.strict)
	var dc struct {
		EstimatedDeliveryDateAndTime json.RawMessage `json:"estimatedDeliveryDateAndTime"`
		TotalTransitDays             json.RawMessage `json:"totalTransitDays"`
	}
	if json.Unmarshal(aux.DeliveryCapabilities, &dc) == nil {
		_ = json.Unmarshal(dc.EstimatedDeliveryDateAndTime, &p.DeliveryCapabilities.EstimatedDeliveryDateAndTime)
		var days float64
		if json.Unmarshal(dc.TotalTransitDays, &days) == nil && days >= 0 && days < 100 {
			p.DeliveryCapabilities.TotalTransitDays = int(days)
		}
	}
	return nil
}

// parseRates maps every product shipd sells of a /rates answer to a
// carriers.Rate. Products shipd does not sell are skipped, and a second
// product of the same service (DHL answering both of its codes) too; a
// product shipd sells without a usable price fails the whole answer
// (ErrFailed), since a quote that silently lost a service or a cent is
// worse than none.
func parseRates(body []byte) ([]carriers.Rate, error) {
	var r ratesResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, malformed(opRate, "the rates answer does not parse: %v", err)
	}
	if r.Products == nil {
		return nil, malformed(opRate, "the rates answer has no products")
	}
	rates := []carriers.Rate{}
	seen := map[string]bool{}
	for _, p := range *r.Products {
		code := strings.TrimSpace(p.ProductCode)
		svc, ok := serviceByCode(code)
		if !ok || seen[svc.name] {
			continue
		}
		seen[svc.name] = true
		price, ok := billedPrice(p.TotalPrice)
		if !ok {
			return nil, malformed(opRate, "product %s has no price in a currency", carriers.Excerpt(code))
		}
		currency := strings.ToUpper(strings.TrimSpace(price.PriceCurrency))
		if !exchangerates.IsCode(currency) {
			return nil, malformed(opRate, "product %s is priced in %q, not a currency", carriers.Excerpt(code), carriers.Excerpt(currency))
		}
		cents, err := price.Price.Minor(exchangerates.MinorUnits(currency))
		if err != nil {
			return nil, malformed(opRate, "product %s: totalPrice: %v", carriers.Excerpt(code), err)
		}
		days := svc.days
		if d := p.DeliveryCapabilities.TotalTransitDays; d > 0 {
			days = d
		}
		date, dated := deliveryDate(p.DeliveryCapabilities.EstimatedDeliveryDateAndTime)
		rates = append(rates, carriers.Rate{
			Carrier:               Name,
			Service:               svc.name,
			ServiceCategory:       svc.category,
			CarrierRateCents:      cents,
			Currency:              currency,
			EstimatedDays:         days,
			EstimatedDeliveryDate: date,
			// DHL Express guarantees the time-definite network's (TD)
			// committed dates, not the day-definite (DD) economy ones.
			Guaranteed:  dated && strings.EqualFold(strings.TrimSpace(p.NetworkTypeCode), "TD"),
			ProductCode: code,
		})
	}
	return rates, nil
}

// billedPrice is the price DHL bills the account: the billing currency's
// (currencyType BILLC), else the first price with a currency (an answer
// that gives one price only, untyped).
func billedPrice(prices []totalPrice) (totalPrice, bool) {
	for _, p := range prices {
		if strings.EqualFold(strings.TrimSpace(p.CurrencyType), "BILLC") && strings.TrimSpace(p.PriceCurrency) != "" {
			return p, true
		}
	}
	for _, p := range prices {
		if strings.TrimSpace(p.PriceCurrency) != "" {
			return p, true
		}
	}
	return totalPrice{}, false
}

// deliveryDate is the date of an estimatedDeliveryDateAndTime
// ("2022-11-24T23:59:00"), when there is one: a date that does not parse
// only loses the date.
func deliveryDate(text string) (time.Time, bool) {
	text = strings.TrimSpace(text)
	if len(text) < len(time.DateOnly) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, text[:len(time.DateOnly)])
	if err != nil || t.Year() < 1970 {
		return time.Time{}, false
	}
	return t, true
}
