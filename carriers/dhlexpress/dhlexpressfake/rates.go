package dhlexpressfake

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/exchangerates"
)

// productInfo is one of the fake's DHL Express products: its name, price
// (base and per kilogram, in units of the billing currency), transit days
// and network (TD: time definite, DD: day definite).
type productInfo struct {
	code, name     string
	base, perKg    string
	days           int
	network        string
	declarable     bool
	sellsExtraCode bool // a product shipd does not sell, answered beside the others
}

var products = map[string]productInfo{
	"N": {code: "N", name: "DOMESTIC EXPRESS", base: "19.90", perKg: "1.50", days: 1, network: "TD"},
	"U": {code: "U", name: "EXPRESS WORLDWIDE EU", base: "34.90", perKg: "2.50", days: 2, network: "TD"},
	"W": {code: "W", name: "ECONOMY SELECT", base: "29.90", perKg: "1.80", days: 4, network: "DD"},
	"D": {code: "D", name: "EXPRESS WORLDWIDE", base: "44.90", perKg: "3.50", days: 3, network: "TD"},
	"T": {code: "T", name: "EXPRESS 12:00", base: "59.90", perKg: "3.80", days: 2, network: "TD"},
	"E": {code: "E", name: "EXPRESS 9:00", base: "79.90", perKg: "4.20", days: 2, network: "TD"},
	"P": {code: "P", name: "EXPRESS WORLDWIDE", base: "44.90", perKg: "3.50", days: 3, network: "TD", declarable: true},
	"Y": {code: "Y", name: "EXPRESS 12:00", base: "59.90", perKg: "3.80", days: 2, network: "TD", declarable: true},
	"K": {code: "K", name: "EXPRESS 9:00", base: "79.90", perKg: "4.20", days: 2, network: "TD", declarable: true},
	"8": {code: "8", name: "EXPRESS EASY", base: "39.90", perKg: "3.00", days: 3, network: "TD", declarable: true, sellsExtraCode: true},
}

// Surcharges of the value-added services the fake prices.
const (
	// DutyTaxPaidFee is DD's charge (DUTY TAX PAID), in units.
	DutyTaxPaidFee = "15.00"
	// SignatureFee is SF's (DIRECT SIGNATURE).
	SignatureFee = "4.50"
)

// lane is where a shipment goes, for the products sold on it.
type lane struct {
	origin, dest           string
	originZip, destZip     string
	declarable             bool
	customsBorder, sameCty bool
}

func laneOf(from, to addressLike, declarable bool) lane {
	a := carriers.Address{Country: from.CountryCode, Zip: from.PostalCode}
	b := carriers.Address{Country: to.CountryCode, Zip: to.PostalCode}
	return lane{origin: a.Country, dest: b.Country, originZip: a.Zip, destZip: b.Zip, declarable: declarable,
		customsBorder: carriers.CustomsRequired(a, b), sameCty: carriers.NormalizeCountry(a.Country) == carriers.NormalizeCountry(b.Country)}
}

type addressLike struct {
	PostalCode  string `json:"postalCode"`
	CityName    string `json:"cityName"`
	CountryCode string `json:"countryCode"`
}

// offered are the products DHL sells on a lane: DOMESTIC EXPRESS at home
// (not in the US, where DHL Express sells none); between EU member states
// the products of goods not declared to customs; across a customs border
// the declarable ones for goods and the others for documents.
func (l lane) offered() []string {
	switch {
	case l.sameCty && l.origin == "US":
		return nil
	case l.sameCty:
		return []string{"N"}
	case !l.customsBorder:
		return []string{"D", "U", "T", "E", "W"}
	case l.declarable:
		return []string{"P", "Y", "K", "8"}
	default:
		return []string{"D", "T", "E"}
	}
}

func (l lane) sells(code string) bool {
	for _, c := range l.offered() {
		if c == code {
			return true
		}
	}
	return false
}

type packageIn struct {
	Weight     json.Number `json:"weight"`
	Dimensions *struct {
		Length json.Number `json:"length"`
		Width  json.Number `json:"width"`
		Height json.Number `json:"height"`
	} `json:"dimensions"`
}

type valueAddedIn struct {
	ServiceCode string `json:"serviceCode"`
}

type rateRequest struct {
	CustomerDetails struct {
		ShipperDetails  addressLike `json:"shipperDetails"`
		ReceiverDetails addressLike `json:"receiverDetails"`
	} `json:"customerDetails"`
	Accounts                   []account      `json:"accounts"`
	PlannedShippingDateAndTime string         `json:"plannedShippingDateAndTime"`
	IsCustomsDeclarable        bool           `json:"isCustomsDeclarable"`
	Packages                   []packageIn    `json:"packages"`
	ValueAddedServices         []valueAddedIn `json:"valueAddedServices"`
}

// billableKg is a shipment's billable weight: each piece's weight or its
// volume at 5,000 cm³ a kilogram, whichever is more.
func billableKg(ps []packageIn) *big.Rat {
	total := new(big.Rat)
	for _, p := range ps {
		w, _ := new(big.Rat).SetString(string(p.Weight))
		if w == nil {
			w = new(big.Rat)
		}
		if d := p.Dimensions; d != nil {
			l, _ := new(big.Rat).SetString(string(d.Length))
			wd, _ := new(big.Rat).SetString(string(d.Width))
			h, _ := new(big.Rat).SetString(string(d.Height))
			if l != nil && wd != nil && h != nil {
				vol := new(big.Rat).Mul(new(big.Rat).Mul(l, wd), h)
				vol.Quo(vol, big.NewRat(5000, 1))
				if vol.Cmp(w) > 0 {
					w = vol
				}
			}
		}
		total.Add(total, w)
	}
	return total
}

func rat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

// priceOf is a product's price for a shipment, with its services.
func priceOf(p productInfo, kg *big.Rat, services []valueAddedIn) *big.Rat {
	price := new(big.Rat).Add(rat(p.base), new(big.Rat).Mul(rat(p.perKg), kg))
	for _, s := range services {
		switch s.ServiceCode {
		case "DD":
			price.Add(price, rat(DutyTaxPaidFee))
		case "SF":
			price.Add(price, rat(SignatureFee))
		}
	}
	return price
}

// number writes r rounded to the currency's decimals as a JSON number.
func number(r *big.Rat, currency string) json.Number {
	return json.Number(r.FloatString(exchangerates.MinorUnits(currency)))
}

type totalPriceOut struct {
	CurrencyType  string      `json:"currencyType"`
	PriceCurrency string      `json:"priceCurrency"`
	Price         json.Number `json:"price"`
}

type productOut struct {
	ProductName          string          `json:"productName"`
	ProductCode          string          `json:"productCode"`
	LocalProductCode     string          `json:"localProductCode"`
	NetworkTypeCode      string          `json:"networkTypeCode"`
	IsCustomerAgreement  bool            `json:"isCustomerAgreement"`
	Weight               map[string]any  `json:"weight"`
	TotalPrice           []totalPriceOut `json:"totalPrice"`
	DeliveryCapabilities map[string]any  `json:"deliveryCapabilities"`
}

func (s *Server) rates(w http.ResponseWriter, r *http.Request, body []byte) {
	var req rateRequest
	if !decode(w, r, body, &req) || !checkAccounts(w, r, req.Accounts) {
		return
	}
	planned, ok := parsePlanned(req.PlannedShippingDateAndTime)
	if !ok {
		badRequest(w, r, "", "plannedShippingDateAndTime is not of the form 2022-11-20T13:00:00 GMT+00:00")
		return
	}
	l := laneOf(req.CustomerDetails.ShipperDetails, req.CustomerDetails.ReceiverDetails, req.IsCustomsDeclarable)
	currency := s.currencyOf(callerAccount(r), carriers.NormalizeCountry(l.origin))
	kg := billableKg(req.Packages)
	out := []productOut{}
	for _, code := range l.offered() {
		p := products[code]
		price := priceOf(p, kg, req.ValueAddedServices)
		public := new(big.Rat).Mul(price, big.NewRat(11, 10))
		base := new(big.Rat).Mul(price, big.NewRat(9, 10))
		delivery := planned.AddDate(0, 0, p.days)
		out = append(out, productOut{
			ProductName: p.name, ProductCode: code, LocalProductCode: code, NetworkTypeCode: p.network,
			Weight: map[string]any{"volumetric": json.Number(kg.FloatString(3)), "provided": json.Number(kg.FloatString(3)), "unitOfMeasurement": "metric"},
			// The billing currency's price (what the label costs), and two
			// others: the public tariff's and DHL's base currency's.
			TotalPrice: []totalPriceOut{
				{CurrencyType: "PULCL", PriceCurrency: currency, Price: number(public, currency)},
				{CurrencyType: "BILLC", PriceCurrency: currency, Price: number(price, currency)},
				{CurrencyType: "BASEC", PriceCurrency: "EUR", Price: number(base, "EUR")},
			},
			DeliveryCapabilities: map[string]any{
				"deliveryTypeCode":             "QDDC",
				"estimatedDeliveryDateAndTime": delivery.Format("2006-01-02") + "T23:59:00",
				"totalTransitDays":             p.days,
			},
		})
	}
	if len(out) == 0 {
		badRequest(w, r, "1001", "The requested product(s) not available based on your search criteria.")
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"products": out})
}

// Landed cost: the duties and taxes of the fake's destinations are a flat
// share of the goods' value (DutyPercent of the goods with a commodity
// code, HighestDutyPercent of those estimated at the highest rate, and
// TaxPercent of all), plus FeeUnits of import processing; the totals are
// named as DHL names them.
const (
	DutyPercent        = 5
	HighestDutyPercent = 12
	TaxPercent         = 20
	FeeUnits           = "10.00"
)

type landedRequest struct {
	Accounts     []account `json:"accounts"`
	CurrencyCode string    `json:"currencyCode"`
	Items        []struct {
		Quantity                json.Number `json:"quantity"`
		UnitPrice               json.Number `json:"unitPrice"`
		UnitPriceCurrencyCode   string      `json:"unitPriceCurrencyCode"`
		CommodityCode           string      `json:"commodityCode"`
		EstimatedTariffRateType string      `json:"estimatedTariffRateType"`
	} `json:"items"`
}

func (s *Server) landedCost(w http.ResponseWriter, r *http.Request, body []byte) {
	var req landedRequest
	if !decode(w, r, body, &req) || !checkAccounts(w, r, req.Accounts) {
		return
	}
	cur := req.CurrencyCode
	duties, taxes := new(big.Rat), new(big.Rat)
	for i, it := range req.Items {
		if it.UnitPriceCurrencyCode != cur {
			badRequest(w, r, "200215", fmt.Sprintf("#/items/number:%d/ unitPriceCurrencyCode %s is not the request's currencyCode %s", i+1, it.UnitPriceCurrencyCode, cur))
			return
		}
		pct := int64(DutyPercent)
		switch {
		case it.CommodityCode != "":
		case it.EstimatedTariffRateType == "highest_rate":
			pct = HighestDutyPercent
		default:
			badRequest(w, r, "200211", fmt.Sprintf("#/items/number:%d/ commodityCode is mandatory if estimatedTariffRateType is not provided", i+1))
			return
		}
		value := new(big.Rat).Mul(rat(string(it.UnitPrice)), rat(string(it.Quantity)))
		duties.Add(duties, new(big.Rat).Mul(value, big.NewRat(pct, 100)))
		taxes.Add(taxes, new(big.Rat).Mul(value, big.NewRat(TaxPercent, 100)))
	}
	line := func(name, typeCode string, v *big.Rat) map[string]any {
		return map[string]any{"name": name, "typeCode": typeCode, "price": number(v, cur), "priceCurrency": cur}
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"products": []any{map[string]any{
		"productName": "EXPRESS WORLDWIDE", "productCode": "P",
		"weight":     map[string]any{"unitOfMeasurement": "metric"},
		"totalPrice": []any{map[string]any{"price": number(new(big.Rat).Add(new(big.Rat).Add(duties, taxes), rat(FeeUnits)), cur), "priceCurrency": cur}},
		"detailedPriceBreakdown": []any{map[string]any{"priceCurrency": cur, "breakdown": []any{
			line("TOTAL DUTIES", "DUTY", duties),
			line("TOTAL TAXES", "TAX", taxes),
			line("TOTAL FEES", "FEE", rat(FeeUnits)),
			line("IMPORT_PROCESSING_CHARGE", "FEE", rat(FeeUnits)),
		}}},
	}}})
}

// Duties is what the fake's landed cost charges, in minor units of
// currency, on goods worth valueMinor minor units, all classified by HS
// code or all not: for tests.
func Duties(valueMinor int64, currency string, classified bool) int64 {
	pct := int64(DutyPercent)
	if !classified {
		pct = HighestDutyPercent
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exchangerates.MinorUnits(currency))), nil)
	value := new(big.Rat).SetFrac64(valueMinor, 1)
	duty := roundHalfUp(new(big.Rat).Mul(value, big.NewRat(pct, 100)))
	tax := roundHalfUp(new(big.Rat).Mul(value, big.NewRat(TaxPercent, 100)))
	fee := roundHalfUp(new(big.Rat).Mul(rat(FeeUnits), new(big.Rat).SetInt(scale)))
	return duty + tax + fee
}

// roundHalfUp rounds a non-negative r to an integer, halves up.
func roundHalfUp(r *big.Rat) int64 {
	h := new(big.Rat).Add(r, big.NewRat(1, 2))
	return new(big.Int).Quo(h.Num(), h.Denom()).Int64()
}
